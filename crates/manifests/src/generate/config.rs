//! The config.openshift.io objects and the install-config ConfigMap.

use std::collections::BTreeMap;
use std::net::IpAddr;

use k8s_openapi::api::core::v1::ConfigMap;

use super::{Dir, Out};
use crate::error::Error;
use crate::inputs::{
    DnsRecordsType, LoadBalancerType, ManifestInputs, PkiKey, PkiManagement, Platform,
    TrustBundlePolicy, VSphere,
};
use crate::objects::*;
use crate::proxy::computed_no_proxy;
use crate::topology;

/// Name of the trust-bundle ConfigMap in openshift-config.
pub(crate) const USER_CA_BUNDLE: &str = "user-ca-bundle";

pub(super) fn add(inputs: &ManifestInputs, out: &mut Out) -> Result<(), Error> {
    let m = Dir::Manifests;
    out.push(m, "cluster-config.yaml", &cluster_config(inputs))?;
    out.push(m, "cluster-dns-02-config.yml", &dns(inputs))?;
    out.push(
        m,
        "cluster-infrastructure-02-config.yml",
        &infrastructure(inputs),
    )?;
    out.push(m, "cluster-ingress-02-config.yml", &ingress(inputs))?;
    out.push(m, "cluster-network-02-config.yml", &network(inputs))?;
    if let Some(cno) = network_operator(inputs) {
        out.push(m, "cluster-network-03-config.yml", &cno)?;
    }
    out.push(m, "cluster-proxy-01-config.yaml", &proxy(inputs))?;
    let scheduler = scheduler(inputs, out);
    out.push(m, "cluster-scheduler-02-config.yml", &scheduler)?;
    out.push(m, "cvo-overrides.yaml", &cluster_version(inputs))?;
    if !inputs.image_digest_sources.is_empty() {
        out.push(m, "image-digest-mirror-set.yaml", &mirror_set(inputs))?;
    }
    if let Some(management) = &inputs.pki {
        out.push(m, "cluster-pki-02-config.yaml", &pki(management))?;
    }
    out.push(
        Dir::Openshift,
        "99_feature-gate.yaml",
        &feature_gate(inputs)?,
    )?;
    Ok(())
}

fn cluster_config(inputs: &ManifestInputs) -> ConfigMap {
    ConfigMap {
        metadata: meta("kube-system", "cluster-config-v1"),
        data: Some(BTreeMap::from([(
            "install-config".to_string(),
            inputs.install_config_redacted_yaml.clone(),
        )])),
        ..ConfigMap::default()
    }
}

fn dns(inputs: &ManifestInputs) -> Dns {
    let spec = DnsSpec {
        base_domain: inputs.names.cluster_domain.clone(),
    };
    Object::cluster_scoped(CONFIG_V1, "DNS", "cluster", spec)
}

fn strings<T: ToString>(items: &[T]) -> Vec<String> {
    items.iter().map(ToString::to_string).collect()
}

fn platform_type(platform: &Platform) -> &'static str {
    match platform {
        Platform::None => "None",
        Platform::BareMetal(_) => "BareMetal",
        Platform::VSphere(_) => "VSphere",
    }
}

fn infrastructure(inputs: &ManifestInputs) -> Infrastructure {
    let names = &inputs.names;
    let spec = infrastructure_spec(inputs);
    let mut obj = Object::cluster_scoped(CONFIG_V1, "Infrastructure", "cluster", spec);
    let partitioning = if inputs.cpu_partitioning_all_nodes {
        "AllNodes"
    } else {
        "None"
    };
    obj.status = Some(InfrastructureStatus {
        infrastructure_name: inputs.infra_id.clone(),
        api_server_url: format!("https://{}:6443", names.api),
        api_server_internal_uri: format!("https://{}:6443", names.api_int),
        platform: platform_type(&inputs.platform).to_string(),
        platform_status: platform_status(inputs),
        control_plane_topology: topology::control_plane_topology(inputs).to_string(),
        infrastructure_topology: topology::infrastructure_topology(inputs).to_string(),
        cpu_partitioning: partitioning.to_string(),
    });
    obj
}

fn infrastructure_spec(inputs: &ManifestInputs) -> InfrastructureSpec {
    let machine_networks = strings(&inputs.networking.machine_network);
    let mut spec = InfrastructureSpec {
        cloud_config: ConfigMapFileReference::default(),
        platform_spec: PlatformSpec {
            type_: platform_type(&inputs.platform).to_string(),
            baremetal: None,
            vsphere: None,
        },
    };
    match &inputs.platform {
        Platform::None => {}
        Platform::BareMetal(bm) => {
            let vips = vip_spec(&bm.api_vips, &bm.ingress_vips, &machine_networks);
            spec.platform_spec.baremetal = Some(vips);
        }
        Platform::VSphere(vs) => {
            spec.platform_spec.vsphere =
                Some(vsphere_spec(vs, &inputs.infra_id, &machine_networks));
            spec.cloud_config = ConfigMapFileReference {
                name: super::vsphere::CLOUD_PROVIDER_CONFIG.to_string(),
                key: super::vsphere::CLOUD_CONFIG_KEY.to_string(),
            };
        }
    }
    spec
}

fn platform_status(inputs: &ManifestInputs) -> PlatformStatus {
    let machine_networks = strings(&inputs.networking.machine_network);
    let mut status = PlatformStatus {
        type_: platform_type(&inputs.platform).to_string(),
        baremetal: None,
        vsphere: None,
    };
    match &inputs.platform {
        Platform::None => {}
        Platform::BareMetal(bm) => {
            let lb = bm.load_balancer;
            let mut vips = vip_status(&bm.api_vips, &bm.ingress_vips, lb, &machine_networks);
            vips.dns_records_type = bm.dns_records_type.map(|d| dns_records_name(d).to_string());
            status.baremetal = Some(vips);
        }
        // Without VIPs (external load balancer, UPI) the status still names the platform's
        // machine networks, with no VIP and no load balancer.
        Platform::VSphere(vs) => {
            let lb = vs.load_balancer.filter(|_| !vs.api_vips.is_empty());
            let vips = vip_status(&vs.api_vips, &vs.ingress_vips, lb, &machine_networks);
            status.vsphere = Some(vips);
        }
    }
    status
}

fn vip_spec(api: &[IpAddr], ingress: &[IpAddr], machine_networks: &[String]) -> VipSpec {
    VipSpec {
        api_server_internal_i_ps: strings(api),
        ingress_i_ps: strings(ingress),
        machine_networks: machine_networks.to_vec(),
    }
}

/// The API spelling of a load balancer type.
fn load_balancer_name(lb: LoadBalancerType) -> &'static str {
    match lb {
        LoadBalancerType::OpenShiftManagedDefault => "OpenShiftManagedDefault",
        LoadBalancerType::UserManaged => "UserManaged",
    }
}

/// The API spelling of a DNS records type.
fn dns_records_name(d: DnsRecordsType) -> &'static str {
    match d {
        DnsRecordsType::Internal => "Internal",
        DnsRecordsType::External => "External",
    }
}

/// The VIP status of a platform. The load balancer type is copied from the install config:
/// with `UserManaged` the MCO leaves keepalived and haproxy off the nodes; unset, the API's
/// default (`OpenShiftManagedDefault`) applies.
fn vip_status(
    api: &[IpAddr],
    ingress: &[IpAddr],
    lb: Option<LoadBalancerType>,
    machine_networks: &[String],
) -> VipStatus {
    VipStatus {
        api_server_internal_ip: api.first().map(ToString::to_string),
        api_server_internal_i_ps: strings(api),
        ingress_ip: ingress.first().map(ToString::to_string),
        ingress_i_ps: strings(ingress),
        dns_records_type: None,
        load_balancer: lb.map(|lb| LoadBalancer {
            type_: load_balancer_name(lb).to_string(),
        }),
        machine_networks: machine_networks.to_vec(),
    }
}

/// Path of the VM template the machine API clones when a failure domain names none: the one
/// the installer would have uploaded for that region and zone.
fn default_template(infra_id: &str, f: &VSphereFailureDomain) -> String {
    format!(
        "/{}/vm/{infra_id}-rhcos-{}-{}",
        f.topology.datacenter, f.region, f.zone
    )
}

/// The domain as the Infrastructure lists it: its template, or the default one.
fn with_template(infra_id: &str, f: &VSphereFailureDomain) -> VSphereFailureDomain {
    let mut out = f.clone();
    out.topology.template = Some(
        f.topology
            .template
            .clone()
            .unwrap_or_else(|| default_template(infra_id, f)),
    );
    out
}

fn vsphere_spec(vs: &VSphere, infra_id: &str, machine_networks: &[String]) -> VSpherePlatformSpec {
    // vSphere also lists every VIP as a single-address network after the machine networks.
    let mut networks = machine_networks.to_vec();
    for vip in vs.api_vips.iter().chain(&vs.ingress_vips) {
        networks.push(format!("{vip}/{}", if vip.is_ipv4() { 32 } else { 128 }));
    }
    // Node networking is derived from the machine networks only with VSphereMultiNetworks.
    let subnets = || NetworkSubnets {
        network_subnet_cidr: if vs.multi_networks {
            machine_networks.to_vec()
        } else {
            Vec::new()
        },
    };
    VSpherePlatformSpec {
        vips: vip_spec(&vs.api_vips, &vs.ingress_vips, &networks),
        vcenters: vs
            .vcenters
            .iter()
            .map(|v| VSphereVCenter {
                server: v.server.clone(),
                port: v.port,
                datacenters: v.datacenters.clone(),
            })
            .collect(),
        // Domains without a compute cluster or network cannot place machines; skip them.
        failure_domains: vs
            .failure_domains
            .iter()
            .filter(|f| !f.topology.compute_cluster.is_empty() && !f.topology.networks.is_empty())
            .map(|f| with_template(infra_id, f))
            .collect(),
        node_networking: VSphereNodeNetworking {
            external: subnets(),
            internal: subnets(),
        },
    }
}

fn ingress(inputs: &ManifestInputs) -> Ingress {
    // A single control-plane node on platform none has no load balancer: ingress must stay on
    // that node even after workers join, so its router is pinned to the control plane.
    let pinned = matches!(inputs.platform, Platform::None)
        && topology::control_plane_topology(inputs) == "SingleReplica";
    let spec = IngressSpec {
        domain: format!("apps.{}", inputs.cluster_domain()),
    };
    let mut obj = Object::cluster_scoped(CONFIG_V1, "Ingress", "cluster", spec);
    obj.status = Some(IngressStatus {
        default_placement: if pinned { "ControlPlane" } else { "Workers" }.to_string(),
    });
    obj
}

fn network(inputs: &ManifestInputs) -> Network {
    let net = &inputs.networking;
    let spec = NetworkSpec {
        cluster_network: cluster_networks(inputs),
        service_network: strings(&net.service_network),
        network_type: net.network_type.clone(),
        external_ip: ExternalIpConfig::default(),
    };
    Object::cluster_scoped(CONFIG_V1, "Network", "cluster", spec)
}

/// The cluster network operator's own configuration, written (as upstream does) only when
/// the install config sets something it alone understands: the OVN join subnet.
fn network_operator(inputs: &ManifestInputs) -> Option<OperatorNetwork> {
    let join = inputs.networking.ovn_internal_join_subnet?;
    let net = &inputs.networking;
    let spec = OperatorNetworkSpec {
        management_state: "Managed".to_string(),
        cluster_network: cluster_networks(inputs),
        service_network: strings(&net.service_network),
        default_network: DefaultNetwork {
            type_: net.network_type.clone(),
            ovn_kubernetes_config: OvnKubernetesConfig {
                ipv4: OvnIpv4Config {
                    internal_join_subnet: join.to_string(),
                },
            },
        },
    };
    Some(Object::cluster_scoped(
        OPERATOR_V1,
        "Network",
        "cluster",
        spec,
    ))
}

fn cluster_networks(inputs: &ManifestInputs) -> Vec<ClusterNetwork> {
    inputs
        .networking
        .cluster_network
        .iter()
        .map(|c| ClusterNetwork {
            cidr: c.cidr.to_string(),
            host_prefix: c.host_prefix,
        })
        .collect()
}

fn proxy(inputs: &ManifestInputs) -> ProxyObject {
    let user = inputs.proxy.clone().unwrap_or_default();
    let enabled = inputs.proxy_enabled();
    let trusted = inputs.additional_trust_bundle.is_some()
        && (enabled || inputs.trust_bundle_policy == TrustBundlePolicy::Always);
    let spec = ProxySpec {
        http_proxy: user.http_proxy.clone(),
        https_proxy: user.https_proxy.clone(),
        no_proxy: user.no_proxy.clone(),
        trusted_ca: trusted.then(|| ConfigMapNameReference {
            name: USER_CA_BUNDLE.to_string(),
        }),
    };
    let mut obj = Object::cluster_scoped(CONFIG_V1, "Proxy", "cluster", spec);
    if enabled {
        obj.status = Some(ProxyStatus {
            http_proxy: user.http_proxy,
            https_proxy: user.https_proxy,
            no_proxy: computed_no_proxy(inputs),
        });
    }
    obj
}

fn scheduler(inputs: &ManifestInputs, out: &mut Out) -> Scheduler {
    let schedulable = topology::masters_schedulable(inputs);
    if schedulable {
        out.warn(
            "no compute replicas: control-plane nodes will also run workloads \
             (mastersSchedulable: true in manifests/cluster-scheduler-02-config.yml; \
             edit that file before creating ignition configs to change it)"
                .to_string(),
        );
    }
    let spec = SchedulerSpec {
        masters_schedulable: schedulable,
    };
    Object::cluster_scoped(CONFIG_V1, "Scheduler", "cluster", spec)
}

fn cluster_version(inputs: &ManifestInputs) -> ClusterVersion {
    let spec = ClusterVersionSpec {
        channel: Some(inputs.release.channel.clone()).filter(|c| !c.is_empty()),
        upstream: inputs.release.upstream.clone(),
        cluster_id: inputs.cluster_id.clone(),
        capabilities: inputs
            .capabilities
            .as_ref()
            .map(|c| ClusterVersionCapabilities {
                baseline_capability_set: c.baseline_capability_set.clone(),
                additional_enabled_capabilities: c.additional_enabled_capabilities.clone(),
            }),
        overrides: None,
        extra: BTreeMap::new(),
    };
    let mut obj = Object::cluster_scoped(CONFIG_V1, "ClusterVersion", "version", spec);
    obj.metadata.namespace = Some("openshift-cluster-version".to_string());
    obj
}

fn mirror_set(inputs: &ManifestInputs) -> ImageDigestMirrorSet {
    let spec = ImageDigestMirrorSetSpec {
        image_digest_mirrors: inputs
            .image_digest_sources
            .iter()
            .map(|s| ImageDigestMirrors {
                source: s.source.clone(),
                mirrors: s.mirrors.clone(),
                mirror_source_policy: s.source_policy.clone(),
            })
            .collect(),
    };
    Object::cluster_scoped(
        CONFIG_V1,
        "ImageDigestMirrorSet",
        "image-digest-mirror",
        spec,
    )
}

/// The key every certificate of the recommended profile gets (upstream keeps RSA-4096 until
/// every operator rotates ECDSA certificates); a custom profile changes only the signers'.
const PROFILE_DEFAULT_KEY: PkiKey = PkiKey::Rsa { key_size: 4096 };

fn pki(management: &PkiManagement) -> Pki {
    let certificate_management = match management {
        PkiManagement::Default => PkiCertificateManagement {
            mode: "Default".to_string(),
            custom: None,
        },
        PkiManagement::Custom { signer } => PkiCertificateManagement {
            mode: "Custom".to_string(),
            custom: Some(PkiProfile {
                defaults: PkiCertificateConfig {
                    key: pki_key(&PROFILE_DEFAULT_KEY),
                },
                signer_certificates: PkiCertificateConfig {
                    key: pki_key(signer),
                },
            }),
        },
    };
    let spec = PkiSpec {
        certificate_management,
    };
    Object::cluster_scoped(CONFIG_V1ALPHA1, "PKI", "cluster", spec)
}

fn pki_key(key: &PkiKey) -> PkiKeyConfig {
    match key {
        PkiKey::Rsa { key_size } => PkiKeyConfig {
            algorithm: "RSA".to_string(),
            rsa: Some(PkiRsaKey {
                key_size: *key_size,
            }),
            ecdsa: None,
        },
        PkiKey::Ecdsa { curve } => PkiKeyConfig {
            algorithm: "ECDSA".to_string(),
            rsa: None,
            ecdsa: Some(PkiEcdsaKey {
                curve: curve.clone(),
            }),
        },
    }
}

fn feature_gate(inputs: &ManifestInputs) -> Result<FeatureGate, Error> {
    let mut spec = FeatureGateSpec {
        feature_set: Some(inputs.feature_set.clone()).filter(|s| !s.is_empty()),
        custom_no_upgrade: None,
    };
    if inputs.feature_set == "CustomNoUpgrade" {
        let mut gates = CustomFeatureGates::default();
        for (i, entry) in inputs.feature_gates.iter().enumerate() {
            let (name, value) = entry.split_once('=').unwrap_or((entry, ""));
            match value.trim() {
                "true" => gates.enabled.push(name.trim().to_string()),
                "false" => gates.disabled.push(name.trim().to_string()),
                _ => {
                    return Err(Error::Input {
                        field: format!("featureGates[{i}]"),
                        reason: format!("{entry:?} is not of the form Name=true or Name=false"),
                    });
                }
            }
        }
        spec.custom_no_upgrade = Some(gates);
    }
    Ok(Object::cluster_scoped(
        CONFIG_V1,
        "FeatureGate",
        "cluster",
        spec,
    ))
}
