//! `manifests/` and `openshift/`: generated from the install config, then owned by the user.
//!
//! After `create manifests` the two directories are the user's to edit: a later run loads them
//! (every file must parse as Kubernetes objects), and any difference from what was generated
//! makes every dependant (bootstrap.ign, ...) regenerate. Nothing in them is ever deleted.

use crate::Error;
use asset_graph::{Asset, BoxError, Context, Dep, Fetcher, File, Parents};
use installconfig::{ClusterNames, Hyperthreading, InstallConfig, yaml_name};
use manifests::{Dir, ManifestInputs};
use serde::{Deserialize, Serialize};

use crate::auth::KubeadminPassword;
use crate::config::{ClusterIdAsset, InstallConfigAsset};
use crate::options::ReleaseOptions;
use crate::pointer::{MasterPointer, WorkerPointer};
use crate::tls::{Cert, MachineConfigServer, RootCa};

/// One file of `manifests/` or `openshift/`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ManifestEntry {
    /// `manifests` or `openshift`.
    pub dir: String,
    /// File name inside the directory.
    pub name: String,
    /// Exact bytes.
    pub data: String,
    /// Holds key material or the pull secret (written 0600).
    pub secret: bool,
}

impl ManifestEntry {
    /// `manifests/<name>` or `openshift/<name>`.
    pub fn rel_path(&self) -> String {
        format!("{}/{}", self.dir, self.name)
    }
}

/// Both manifest directories, as generated or as the user left them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ManifestsAsset {
    /// Every file, sorted by path.
    pub files: Vec<ManifestEntry>,
    /// Warnings to show the user (e.g. masters made schedulable).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The cluster Proxy's computed `status.noProxy` (`None` without a proxy): the bootstrap
    /// node exports the same list, so it takes it from here rather than computing it again.
    #[serde(default)]
    pub no_proxy: Option<String>,
}

impl Asset for ManifestsAsset {
    const ID: &'static str = "manifests";
    const NAME: &'static str = "Manifests";

    fn dependencies() -> Vec<Dep> {
        vec![
            Dep::of::<InstallConfigAsset>(),
            Dep::of::<ClusterIdAsset>(),
            Dep::of::<Cert<RootCa>>(),
            Dep::of::<Cert<MachineConfigServer>>(),
            Dep::of::<KubeadminPassword>(),
            Dep::of::<MasterPointer>(),
            Dep::of::<WorkerPointer>(),
            Dep::of::<ReleaseOptions>(),
        ]
    }

    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let inputs = manifest_inputs(parents)?;
        let generated = manifests::generate(&inputs)?;
        let mut files: Vec<ManifestEntry> = generated.files.iter().map(entry).collect();
        let ic = &parents.get::<InstallConfigAsset>()?.config;
        if ic.image_mode_enabled() {
            let pools = image_mode_pools(ic);
            let flow = image_mode_flow(parents.get::<ReleaseOptions>()?.release);
            files.extend(
                manifests::image_mode_manifests(IMAGE_MODE_POOLS, &pools, flow)
                    .iter()
                    .map(entry),
            );
        }
        files.sort_by_key(ManifestEntry::rel_path);
        Ok(ManifestsAsset {
            files,
            warnings: generated.warnings,
            no_proxy: manifests::proxy::computed_no_proxy(&inputs),
        })
    }

    fn files(&self) -> Vec<File> {
        self.files
            .iter()
            .map(|f| {
                if f.secret {
                    File::secret(f.rel_path(), f.data.as_bytes())
                } else {
                    File::new(f.rel_path(), f.data.as_bytes())
                }
            })
            .collect()
    }

    /// Loads both directories when `manifests/cluster-config.yaml` exists; every file must
    /// parse, and all broken files are reported together.
    fn load(dir: &Fetcher) -> Result<Option<Self>, BoxError> {
        let mut outcome = manifests::load_dir(dir.dir()).map_err(Error::UnusableManifests)?;
        let loaded = outcome.manifests.iter().chain(&outcome.openshift).flatten();
        let private: Vec<String> = loaded
            .filter_map(|f| manifests::user::make_private(dir.dir(), f))
            .collect();
        outcome.warnings.extend(private);
        let Some(manifest_files) = outcome.manifests else {
            if dir.dir().join(Dir::Manifests.as_str()).is_dir() {
                tracing::warn!(
                    "manifests/cluster-config.yaml is missing, so manifests/ is generated \
                     afresh; files you added there are kept on disk but not used"
                );
            }
            return Ok(None);
        };
        let mut files: Vec<ManifestEntry> = manifest_files
            .iter()
            .chain(outcome.openshift.iter().flatten())
            .map(|f| ManifestEntry {
                dir: f.dir.as_str().to_string(),
                name: f.name.clone(),
                data: String::from_utf8_lossy(&f.data).into_owned(),
                secret: f.is_secret(),
            })
            .collect();
        files.sort_by_key(ManifestEntry::rel_path);
        let no_proxy = proxy_status_no_proxy(&files)?;
        let mut warnings = outcome.warnings;
        // Before booting, what the bootstrap would otherwise wait on for ever. The release is
        // not known when loading, so the namespaces of any supported release count.
        let loaded = manifest_files
            .iter()
            .chain(outcome.openshift.iter().flatten());
        warnings.extend(
            manifests::namespaces::unknown_namespaces(loaded, None)
                .iter()
                .map(manifests::namespaces::UnknownNamespace::message),
        );
        Ok(Some(ManifestsAsset {
            files,
            warnings,
            no_proxy,
        }))
    }
}

/// `manifests/` file of the cluster Proxy object.
const PROXY_MANIFEST: &str = "cluster-proxy-01-config.yaml";

/// `status.noProxy` of the Proxy manifest as it is on disk: the user's edit of the manifests
/// wins here as everywhere else. `None` when the file or the field is absent.
fn proxy_status_no_proxy(files: &[ManifestEntry]) -> Result<Option<String>, BoxError> {
    let Some(file) = files
        .iter()
        .find(|f| f.dir == Dir::Manifests.as_str() && f.name == PROXY_MANIFEST)
    else {
        return Ok(None);
    };
    let objects = manifests::user::parse_objects(
        std::path::Path::new(&file.rel_path()),
        file.data.as_bytes(),
    )?;
    Ok(objects.iter().find_map(|o| {
        o.value
            .pointer("/status/noProxy")
            .and_then(serde_json::Value::as_str)
            .filter(|s| !s.is_empty())
            .map(String::from)
    }))
}

fn entry(f: &manifests::ManifestFile) -> ManifestEntry {
    ManifestEntry {
        dir: f.dir.as_str().to_string(),
        name: f.name.clone(),
        data: String::from_utf8_lossy(&f.data).into_owned(),
        secret: f.is_secret(),
    }
}

/// How `release` takes a pre-built OS image at install time.
pub fn image_mode_flow(release: &releases::Release) -> manifests::ImageModeFlow {
    if release.has(releases::Feature::MachineOsConfigBootstrap) {
        manifests::ImageModeFlow::BootstrapMachineOsConfig
    } else {
        manifests::ImageModeFlow::OsImageMachineConfig
    }
}

/// The image-mode objects of `files` (MachineOSConfigs, OS-image MachineConfigs) checked
/// against the install-config's pools and the flow of `release` (`None`: not known, the flow
/// of the releases before [`releases::Feature::MachineOsConfigBootstrap`]). The one check
/// `create` refuses on and `verify` reports.
pub fn image_mode_report(
    ic: &InstallConfig,
    files: &[manifests::UserFile],
    release: Option<&releases::Release>,
) -> manifests::ImageModeReport {
    let flow = release.map_or(
        manifests::ImageModeFlow::OsImageMachineConfig,
        image_mode_flow,
    );
    manifests::validate_machine_os_configs(files, ic.image_mode_enabled(), &ic.pool_names(), flow)
}

/// The pools image mode covers (install-config validation refuses any other compute pool).
pub const IMAGE_MODE_POOLS: &[&str] = &[contract::MASTER_POOL, contract::WORKER_POOL];

/// `imageMode.pools` of install-config as the manifests crate's values; a pool without an
/// entry gets skeletons.
fn image_mode_pools(ic: &InstallConfig) -> Vec<manifests::PoolImage> {
    let pools = ic.image_mode.as_ref().map(|m| m.pools.as_slice());
    pools
        .unwrap_or_default()
        .iter()
        .map(|p| manifests::PoolImage {
            pool: p.name.clone(),
            pre_built_image: p.pre_built_image.trim().to_string(),
            containerfile: p.containerfile.clone(),
            rendered_image_push_spec: p.rendered_image_push_spec.trim().to_string(),
            rendered_image_push_secret: p.rendered_image_push_secret.trim().to_string(),
        })
        .collect()
}

/// Everything the manifests crate needs, gathered from the parents.
fn manifest_inputs(parents: &Parents) -> Result<ManifestInputs, BoxError> {
    let ic = &parents.get::<InstallConfigAsset>()?.config;
    let ids = parents.get::<ClusterIdAsset>()?;
    let root = &parents.get::<Cert<RootCa>>()?.0;
    let mcs = &parents.get::<Cert<MachineConfigServer>>()?.0;
    let release = parents.get::<ReleaseOptions>()?;
    let errors = installconfig::validate_for_release(ic, release.release);
    if !errors.is_empty() {
        return Err(Error::ReleaseConfig {
            release: release.release.version,
            errors,
        }
        .into());
    }
    Ok(ManifestInputs {
        cluster_id: ids.cluster_id.clone(),
        infra_id: ids.infra_id.clone(),
        tls: manifests::inputs::TlsInputs {
            root_ca_cert_pem: root.cert_pem.clone(),
            root_ca_key_pem: root.key_pem.clone(),
            mcs_cert_pem: mcs.cert_pem.clone(),
            mcs_key_pem: mcs.key_pem.clone(),
        },
        kubeadmin_password_hash: parents.get::<KubeadminPassword>()?.hash.clone(),
        master_pointer_ign: parents.get::<MasterPointer>()?.0.clone(),
        worker_pointer_ign: parents.get::<WorkerPointer>()?.0.clone(),
        release: manifests::inputs::ReleaseInfo {
            channel: release.channel.clone(),
            upstream: Some(release.upstream.clone()).filter(|u| !u.is_empty()),
        },
        installer_version: release.installer_version.clone(),
        invoker: release.invoker.clone(),
        ..map_install_config(
            ic,
            &parents.get::<InstallConfigAsset>()?.names,
            release.release,
        )?
    })
}

/// The PKI resource's management for the manifests crate (`None`: no PKI manifest).
fn pki_management(
    ic: &InstallConfig,
    release: &releases::Release,
) -> Option<manifests::inputs::PkiManagement> {
    use installconfig::validate::{PkiManagement as Ic, SignerKeyChoice};
    use manifests::inputs::{PkiKey, PkiManagement as Out};
    Some(
        match installconfig::validate::pki_management(ic, release)? {
            Ic::Default => Out::Default,
            Ic::Custom(choice) => Out::Custom {
                signer: match choice {
                    SignerKeyChoice::Rsa(key_size) => PkiKey::Rsa { key_size },
                    SignerKeyChoice::Ecdsa(curve) => PkiKey::Ecdsa {
                        curve: curve.to_string(),
                    },
                },
            },
        },
    )
}

/// Bare metal's Infrastructure status names its DNS records type from the release that
/// introduced the field (4.21), defaulted to `Internal` as upstream defaults it; earlier
/// releases' status has no such field (a value set there was refused by validation).
fn dns_records_type(
    chosen: Option<installconfig::DnsRecordsType>,
    release: &releases::Release,
) -> Option<manifests::inputs::DnsRecordsType> {
    use installconfig::DnsRecordsType as Ic;
    use manifests::inputs::DnsRecordsType as Out;
    let has_field = release.has(releases::Feature::DnsRecordsType);
    has_field.then(|| match chosen.unwrap_or_default() {
        Ic::Internal => Out::Internal,
        Ic::External => Out::External,
    })
}

/// The install-config part of [`ManifestInputs`] for `release`; ids, PKI and pointers are
/// left empty.
pub fn map_install_config(
    ic: &InstallConfig,
    names: &ClusterNames,
    release: &releases::Release,
) -> Result<ManifestInputs, BoxError> {
    let net = ic.networking();
    let pool = |p: &installconfig::MachinePool| manifests::inputs::Pool {
        name: p.name.clone(),
        replicas: p.replicas.unwrap_or(3).max(0) as u32,
        hyperthreading_disabled: p.hyperthreading == Hyperthreading::Disabled,
    };
    let control_plane = ic
        .control_plane()
        .map(pool)
        .ok_or("install-config has no controlPlane after defaulting")?;
    Ok(ManifestInputs {
        names: names.clone(),
        platform: map_platform(ic, release)?,
        networking: manifests::inputs::Networking {
            network_type: net.network_type.clone(),
            cluster_network: net
                .cluster_network
                .iter()
                .map(|c| manifests::inputs::ClusterNetworkEntry {
                    cidr: c.cidr.0,
                    host_prefix: c.host_prefix.clamp(0, 128) as u8,
                })
                .collect(),
            service_network: net.service_network.iter().map(|c| c.0).collect(),
            machine_network: net.machine_network.iter().map(|m| m.cidr.0).collect(),
            ovn_internal_join_subnet: installconfig::validate::configured_join_subnet(net)
                .map(|c| c.masked()),
        },
        proxy: ic.proxy.as_ref().map(|p| manifests::inputs::Proxy {
            http_proxy: non_empty(&p.http_proxy),
            https_proxy: non_empty(&p.https_proxy),
            no_proxy: non_empty(&p.no_proxy),
        }),
        additional_trust_bundle: ic.additional_trust_bundle.clone().filter(|b| !b.is_empty()),
        trust_bundle_policy: match ic.additional_trust_bundle_policy {
            installconfig::TrustBundlePolicy::Proxyonly => {
                manifests::inputs::TrustBundlePolicy::Proxyonly
            }
            installconfig::TrustBundlePolicy::Always => {
                manifests::inputs::TrustBundlePolicy::Always
            }
        },
        pull_secret: ic.pull_secret.clone(),
        ssh_key: non_empty(&ic.ssh_key),
        fips: ic.fips,
        control_plane,
        compute: ic.compute.iter().map(pool).collect(),
        arbiter: ic.arbiter.as_ref().map(pool),
        capabilities: ic
            .capabilities
            .as_ref()
            .map(|c| manifests::inputs::Capabilities {
                baseline_capability_set: yaml_name(&c.baseline_capability_set),
                additional_enabled_capabilities: c
                    .additional_enabled_capabilities
                    .iter()
                    .map(yaml_name)
                    .collect(),
            }),
        feature_set: match ic.feature_set {
            installconfig::FeatureSet::Default => String::new(),
            ref other => yaml_name(other),
        },
        feature_gates: ic.feature_gates.clone(),
        image_digest_sources: mirror_sources(ic),
        cpu_partitioning_all_nodes: ic.cpu_partitioning_mode
            == installconfig::CpuPartitioningMode::AllNodes,
        pki: pki_management(ic, release),
        install_config_redacted_yaml: ic.redacted().to_yaml(),
        cluster_id: String::new(),
        infra_id: String::new(),
        tls: manifests::inputs::TlsInputs {
            root_ca_cert_pem: String::new(),
            root_ca_key_pem: String::new(),
            mcs_cert_pem: String::new(),
            mcs_key_pem: String::new(),
        },
        kubeadmin_password_hash: String::new(),
        master_pointer_ign: String::new(),
        worker_pointer_ign: String::new(),
        release: manifests::inputs::ReleaseInfo {
            channel: String::new(),
            upstream: None,
        },
        installer_version: String::new(),
        invoker: String::new(),
    })
}

fn non_empty(s: &str) -> Option<String> {
    Some(s.to_string()).filter(|s| !s.is_empty())
}

/// The serialized (YAML/JSON) name of a unit-like enum value, e.g. `vCurrent`.
/// Mirrors from imageDigestSources, or from the deprecated imageContentSources.
pub fn mirror_sources(ic: &InstallConfig) -> Vec<manifests::inputs::ImageDigestSource> {
    let digest = ic
        .image_digest_sources
        .iter()
        .map(|s| manifests::inputs::ImageDigestSource {
            source: s.source.clone(),
            mirrors: s.mirrors.clone(),
            source_policy: s.source_policy.as_ref().map(yaml_name),
        });
    let legacy = ic
        .image_content_sources
        .iter()
        .map(|s| manifests::inputs::ImageDigestSource {
            source: s.source.clone(),
            mirrors: s.mirrors.clone(),
            source_policy: None,
        });
    digest.chain(legacy).collect()
}

fn parse_ips(vips: Vec<String>) -> Result<Vec<std::net::IpAddr>, BoxError> {
    vips.iter()
        .map(|v| {
            v.parse().map_err(|e: std::net::AddrParseError| {
                Error::BadVip {
                    what: "VIP",
                    value: v.clone(),
                    reason: e.to_string(),
                }
                .into()
            })
        })
        .collect()
}

fn map_platform(
    ic: &InstallConfig,
    release: &releases::Release,
) -> Result<manifests::inputs::Platform, BoxError> {
    if let Some(bm) = &ic.platform.baremetal {
        return Ok(manifests::inputs::Platform::BareMetal(map_baremetal(
            ic, bm, release,
        )?));
    }
    if let Some(vs) = &ic.platform.vsphere {
        return Ok(manifests::inputs::Platform::VSphere(map_vsphere(ic, vs)?));
    }
    Ok(manifests::inputs::Platform::None)
}

/// `loadBalancer.type` as the manifests crate spells it; `None` when the user left it out.
fn load_balancer(
    lb: &Option<installconfig::LoadBalancer>,
) -> Option<manifests::inputs::LoadBalancerType> {
    lb.as_ref().map(|l| match l.lb_type {
        installconfig::LoadBalancerType::OpenShiftManagedDefault => {
            manifests::inputs::LoadBalancerType::OpenShiftManagedDefault
        }
        installconfig::LoadBalancerType::UserManaged => {
            manifests::inputs::LoadBalancerType::UserManaged
        }
    })
}

fn map_baremetal(
    ic: &InstallConfig,
    bm: &installconfig::BaremetalPlatform,
    release: &releases::Release,
) -> Result<manifests::inputs::BareMetal, BoxError> {
    use installconfig::ProvisioningNetwork as Ic;
    use manifests::inputs::ProvisioningNetwork as Out;
    let network = match bm.provisioning_network {
        Some(Ic::Unmanaged) => Out::Unmanaged,
        Some(Ic::Disabled) => Out::Disabled,
        Some(Ic::Managed) | None => Out::Managed,
    };
    Ok(manifests::inputs::BareMetal {
        api_vips: parse_ips(ic.api_vips())?,
        ingress_vips: parse_ips(ic.ingress_vips())?,
        load_balancer: load_balancer(&bm.load_balancer),
        dns_records_type: dns_records_type(bm.dns_records_type, release),
        provisioning: manifests::inputs::BareMetalProvisioning {
            network,
            network_cidr: bm.provisioning_network_cidr.map(|c| c.0),
            interface: bm.provisioning_network_interface.clone(),
            cluster_provisioning_ip: bm.cluster_provisioning_ip.as_ref().and_then(|ip| ip.ip()),
            gateway: bm
                .provisioning_network_gateway
                .as_ref()
                .and_then(|ip| ip.ip()),
            dhcp_range: bm.provisioning_dhcp_range.clone(),
            os_download_url: bm.cluster_os_image.clone(),
            additional_ntp_servers: bm.additional_ntp_servers.clone(),
        },
    })
}

fn map_vsphere(
    ic: &InstallConfig,
    vs: &installconfig::VspherePlatform,
) -> Result<manifests::inputs::VSphere, BoxError> {
    use installconfig::validate::{FeatureGate, gate_enabled};
    Ok(manifests::inputs::VSphere {
        api_vips: parse_ips(ic.api_vips())?,
        ingress_vips: parse_ips(ic.ingress_vips())?,
        load_balancer: load_balancer(&vs.load_balancer),
        vcenters: vs
            .vcenters
            .iter()
            .map(|v| manifests::inputs::VCenter {
                server: v.server.clone(),
                port: v.port.unwrap_or(installconfig::DEFAULT_VCENTER_PORT),
                datacenters: v.datacenters.clone(),
            })
            .collect(),
        credentials: vs
            .vcenters
            .iter()
            .map(|v| manifests::inputs::VCenterCredentials {
                server: v.server.clone(),
                username: v.user.clone(),
                password: manifests::inputs::SecretString(v.password.clone()),
            })
            .collect(),
        failure_domains: vs.failure_domains.iter().map(failure_domain).collect(),
        multi_networks: gate_enabled(ic, FeatureGate::VSphereMultiNetworks),
    })
}

/// The install-config's domain in the Infrastructure's shape: its tags and host group are
/// for machine creation, which the cluster's Infrastructure does not carry.
fn failure_domain(f: &installconfig::FailureDomain) -> manifests::inputs::FailureDomain {
    let t = &f.topology;
    manifests::inputs::FailureDomain {
        name: f.name.clone(),
        region: f.region.clone(),
        zone: f.zone.clone(),
        server: f.server.clone(),
        topology: manifests::objects::VSphereTopology {
            datacenter: t.datacenter.clone(),
            compute_cluster: t.compute_cluster.clone(),
            networks: t.networks.clone(),
            datastore: t.datastore.clone(),
            resource_pool: t.resource_pool.clone(),
            folder: t.folder.clone(),
            template: t.template.clone(),
        },
    }
}

/// Files of both directories as (`manifests/<name>`, bytes), in delivery order.
pub fn manifest_pairs(m: &ManifestsAsset) -> Vec<(String, Vec<u8>)> {
    m.files
        .iter()
        .map(|f| (f.rel_path(), f.data.clone().into_bytes()))
        .collect()
}

/// The directory name of an entry as the manifests crate's enum.
pub fn dir_of(entry: &ManifestEntry) -> Dir {
    if entry.dir == Dir::Openshift.as_str() {
        Dir::Openshift
    } else {
        Dir::Manifests
    }
}

#[cfg(test)]
mod tests {
    use super::{ManifestEntry, PROXY_MANIFEST, proxy_status_no_proxy};

    fn entry(dir: &str, name: &str, data: &str) -> ManifestEntry {
        ManifestEntry {
            dir: dir.into(),
            name: name.into(),
            data: data.into(),
            secret: false,
        }
    }

    const PROXY: &str = "apiVersion: config.openshift.io/v1\nkind: Proxy\nmetadata:\n  \
                         name: cluster\nspec:\n  httpProxy: http://p:3128\nstatus:\n  \
                         httpProxy: http://p:3128\n  noProxy: .svc,edited.example.com\n";

    /// Loaded manifests give the bootstrap what the Proxy manifest on disk says, edits included.
    #[test]
    fn no_proxy_of_loaded_manifests_is_the_proxy_status_on_disk() {
        let files = vec![
            entry("manifests", "cluster-config.yaml", "kind: ConfigMap\n"),
            entry("manifests", PROXY_MANIFEST, PROXY),
        ];
        assert_eq!(
            proxy_status_no_proxy(&files).unwrap().as_deref(),
            Some(".svc,edited.example.com")
        );
    }

    /// No Proxy manifest, one without a status (no proxy configured), or one in `openshift/`
    /// (not the cluster Proxy's file): nothing to export.
    #[test]
    fn no_proxy_is_none_without_a_proxy_status() {
        assert_eq!(proxy_status_no_proxy(&[]).unwrap(), None);
        let bare = "apiVersion: config.openshift.io/v1\nkind: Proxy\nmetadata:\n  name: cluster\n";
        let files = [entry("manifests", PROXY_MANIFEST, bare)];
        assert_eq!(proxy_status_no_proxy(&files).unwrap(), None);
        let elsewhere = [entry("openshift", PROXY_MANIFEST, PROXY)];
        assert_eq!(proxy_status_no_proxy(&elsewhere).unwrap(), None);
    }

    /// The bare-metal DNS records type is written from 4.21 on, defaulted to Internal, and
    /// never before; a user's External is kept.
    #[test]
    fn dns_records_type_follows_the_release() {
        use manifests::inputs::DnsRecordsType;
        let release = |v: &str| releases::table().get(v.parse().unwrap()).unwrap();
        let run = |chosen: Option<DnsRecordsType>, v: &str| {
            let chosen = chosen.map(|d| match d {
                DnsRecordsType::Internal => installconfig::DnsRecordsType::Internal,
                DnsRecordsType::External => installconfig::DnsRecordsType::External,
            });
            super::dns_records_type(chosen, release(v))
        };
        assert_eq!(run(None, "4.20"), None);
        assert_eq!(run(None, "4.21"), Some(DnsRecordsType::Internal));
        let external = Some(DnsRecordsType::External);
        assert_eq!(run(external, "5.0"), external);
    }
}
