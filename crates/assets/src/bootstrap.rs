//! `bootstrap.ign` and its pivot and single-node variants: the rendered templates plus the
//! manifests, TLS files and kubeconfigs of the other assets.

use crate::Error;
use asset_graph::{Asset, BoxError, Context, Dep, File, Parents};
use ignition::{NodeFile, TemplateContext, Variant};
use installconfig::{InstallConfig, Platform};
use serde::{Deserialize, Serialize};

use crate::auth::{node_kubeconfig_deps, node_kubeconfigs};
use crate::config::InstallConfigAsset;
use crate::manifests::{ManifestsAsset, manifest_pairs, mirror_sources};
use crate::metadata::feature_set_name;
use crate::options::{IgnitionOptions, ReleaseOptions};
use crate::pointer::pointer_host;
use crate::tls::{BootstrapSshKeyPair, TlsTree};

/// The inputs every bootstrap variant is assembled from.
fn bootstrap_deps() -> Vec<Dep> {
    [
        vec![
            Dep::of::<InstallConfigAsset>(),
            Dep::of::<ManifestsAsset>(),
            Dep::of::<TlsTree>(),
        ],
        node_kubeconfig_deps(),
        vec![
            Dep::of::<BootstrapSshKeyPair>(),
            Dep::of::<ReleaseOptions>(),
            Dep::of::<IgnitionOptions>(),
        ],
    ]
    .concat()
}

/// Assembles one bootstrap variant and serializes it (compressed when asked).
fn build_bootstrap(parents: &Parents, variant: Variant) -> Result<String, BoxError> {
    let install_config = parents.get::<InstallConfigAsset>()?;
    let ic = &install_config.config;
    let manifests = parents.get::<ManifestsAsset>()?;
    let release = parents.get::<ReleaseOptions>()?;
    check_image_mode(ic, manifests, release.release)?;
    let ctx = template_context(install_config, manifests, release, variant)?;
    let mut files = manifest_node_files(manifests)?;
    files.extend(auth_node_files(parents)?);
    files.extend(tls_node_files(parents.get::<TlsTree>()?));
    let ssh = parents.get::<BootstrapSshKeyPair>()?;
    let keys = vec![ic.ssh_key.clone(), ssh.public_key.clone()];
    let mut config = ignition::bootstrap_config(variant, &ctx, files, keys)?;
    if parents.get::<IgnitionOptions>()?.compress {
        config = ignition::compress(config);
    }
    let problems = ignition::check(&config);
    if !problems.is_empty() {
        return Err(Error::IgnitionChecks(problems).into());
    }
    Ok(ignition::to_json(&config))
}

/// `create ignition-configs` refuses image-mode objects that still need the user's values or
/// that disagree (exit code 3, like an invalid install-config: the input is what is wrong).
fn check_image_mode(
    ic: &InstallConfig,
    m: &ManifestsAsset,
    release: &releases::Release,
) -> Result<(), BoxError> {
    let mut files = Vec::new();
    for f in &m.files {
        let path = std::path::Path::new(&f.dir).join(&f.name);
        let objects = manifests::user::parse_objects(&path, f.data.as_bytes())?;
        files.push(manifests::UserFile {
            dir: crate::manifests::dir_of(f),
            name: f.name.clone(),
            data: f.data.clone().into_bytes(),
            objects,
        });
    }
    let flow = crate::manifests::image_mode_flow(release);
    let report = crate::manifests::image_mode_report(ic, &files, Some(release));
    for w in &report.warnings {
        tracing::warn!("{w}");
    }
    if report.errors.is_empty() {
        return Ok(());
    }
    if flow == manifests::ImageModeFlow::BootstrapMachineOsConfig {
        return Err(Error::BootstrapMachineOsConfigs {
            release: release.version,
            errors: report.errors,
        }
        .into());
    }
    Err(Error::ImageModeNotReady(report.errors).into())
}

/// `/opt/openshift/{manifests,openshift}/*` (0644, Secrets 0600), with the bootstrap-only CVO
/// overrides.
fn manifest_node_files(m: &ManifestsAsset) -> Result<Vec<NodeFile>, BoxError> {
    let pairs = manifest_pairs(m);
    // Like upstream, objects owned by the machine assets stay managed by the CVO.
    let borrowed: Vec<(&str, &[u8])> = pairs
        .iter()
        .filter(|(p, _)| !manifests::owned_by_machine_assets(p.rsplit('/').next().unwrap_or(p)))
        .map(|(p, d)| (p.as_str(), d.as_slice()))
        .collect();
    let cvo = manifests::cvo_ignore(&borrowed)?;
    let mut files: Vec<NodeFile> = pairs
        .iter()
        .map(|(path, data)| {
            let data = if path == manifests::cvo::CVO_OVERRIDES {
                cvo.cvo_overrides.clone()
            } else {
                data.clone()
            };
            let mut file = NodeFile::asset(format!("/opt/openshift/{path}"), data);
            // A Secret (pull secret, kubeadmin hash, cloud credentials, TLS) is root's
            // alone on the node too, by the one rule the manifests on disk follow.
            if m.files.iter().any(|f| f.secret && f.rel_path() == *path) {
                file.mode = 0o600;
            }
            file
        })
        .collect();
    files.push(NodeFile::asset(
        "/opt/openshift/original_cvo_overrides.patch",
        cvo.original_patch,
    ));
    Ok(files)
}

/// The kubeconfigs of the kubeconfig table that live on the bootstrap node (private, by
/// [`ignition::asset_file_mode`]).
fn auth_node_files(parents: &Parents) -> Result<Vec<NodeFile>, BoxError> {
    Ok(node_kubeconfigs(parents)?
        .into_iter()
        .map(|(path, yaml)| NodeFile::asset(path, yaml))
        .collect())
}

/// `/opt/openshift/tls/*` with the modes pki's table gives each file on the bootstrap host
/// ([`pki::TlsFile::bootstrap_host_mode`]), without the keys that stay off it.
fn tls_node_files(tls: &TlsTree) -> Vec<NodeFile> {
    tls.files
        .iter()
        .filter_map(|f| {
            let mode = f.file.bootstrap_host_mode()?;
            let path = format!("/opt/openshift/{}", f.file.path());
            Some(NodeFile::new(path, mode, f.content.as_bytes()))
        })
        .collect()
}

/// The values the bootstrap templates may use.
///
/// The cluster's names come from the install-config asset and the proxy's `noProxy` from the
/// manifests asset (the Proxy object's status the cluster gets), so the bootstrap node exports
/// exactly what the cluster is told.
pub fn template_context(
    install_config: &InstallConfigAsset,
    manifests: &ManifestsAsset,
    release: &ReleaseOptions,
    variant: Variant,
) -> Result<TemplateContext, BoxError> {
    let ic = &install_config.config;
    let names = &install_config.names;
    let net = ic.networking();
    let first_v6 = net.service_network.first().is_some_and(|c| !c.is_ipv4());
    let families = net
        .service_network
        .iter()
        .map(|c| c.is_ipv4())
        .collect::<Vec<_>>();
    let dual = families.contains(&true) && families.contains(&false);
    let proxy = ic.proxy.clone().unwrap_or_default();
    let no_proxy = manifests.no_proxy.clone().unwrap_or_default();
    let disk = |d: &str| ignition::InstallationDisk {
        installation_disk: d.to_string(),
    };
    Ok(TemplateContext {
        release_image: release.release_image.clone(),
        names: names.clone(),
        pull_secret: ic.pull_secret.clone(),
        ssh_key: ic.ssh_key.clone(),
        additional_trust_bundle: ic.additional_trust_bundle.clone().unwrap_or_default(),
        fips: ic.fips,
        proxy: ignition::ProxyContext {
            http_proxy: proxy.http_proxy,
            https_proxy: proxy.https_proxy,
            no_proxy,
        },
        registries: registries(ic, release.release),
        bootstrap_in_place: match variant {
            Variant::SingleNode => ic
                .bootstrap_in_place
                .as_ref()
                .map(|b| disk(&b.installation_disk)),
            _ => None,
        },
        bootstrap_pivot: match variant {
            Variant::Pivot => ic
                .bootstrap_pivot
                .as_ref()
                .map(|b| disk(&b.installation_disk)),
            _ => None,
        },
        bootstrap_node_ip: release.bootstrap_node_ip.clone(),
        use_ipv6_for_node_ip: first_v6,
        use_dual_for_node_ip: dual,
        machine_config_host: pointer_host(ic, names).to_string(),
        on_prem: ic.machine_config_vip().is_some(),
        hostname_from_dhcp_only: ic
            .platform_kind()
            .is_some_and(Platform::hostname_from_dhcp_only),
        api_vips: ic.api_vips(),
        ingress_vips: ic.ingress_vips(),
        cluster_profile: release.cluster_profile.clone(),
        feature_set: feature_set_name(ic),
        invoker: release.invoker.clone(),
        control_plane_replicas: ic.control_plane_replicas().max(0) as u32,
        target_minor: release.release.version.to_string(),
        image_mode: ic.image_mode_enabled(),
        machine_config_encapsulated: encapsulated_machine_config(ic)?,
        release: ignition::ReleaseContext::of(
            release.release,
            &installconfig::os_image_stream(ic, release.release),
        ),
    })
}

/// registries.conf's entries: the install-config's mirror entries merged as `release` merges
/// them (see [`ignition::registries`]).
pub fn registries(
    ic: &InstallConfig,
    release: &releases::Release,
) -> Vec<ignition::RegistryContext> {
    let sources = mirror_sources(ic);
    let entries: Vec<ignition::MirrorEntry<'_>> = sources
        .iter()
        .map(|s| ignition::MirrorEntry {
            source: &s.source,
            mirrors: &s.mirrors,
            source_policy: s.source_policy.as_deref(),
        })
        .collect();
    ignition::registries(&entries, release)
}

/// The MachineConfig the bootstrap host's first-boot logic reads: FIPS and kernel arguments.
fn encapsulated_machine_config(ic: &InstallConfig) -> Result<String, BoxError> {
    let value = serde_json::json!({
        "apiVersion": "machineconfiguration.openshift.io/v1",
        "kind": "MachineConfig",
        "metadata": { "name": "bootstrap-encapsulated" },
        "spec": {
            "config": { "ignition": { "version": "3.2.0" } },
            "fips": ic.fips,
            "kernelArguments": [],
        }
    });
    Ok(serde_json::to_string(&value)?)
}

macro_rules! bootstrap_asset {
    ($ty:ident, $variant:expr, $id:literal, $name:literal, $enabled:expr) => {
        #[doc = concat!("The ", $name, " (file name: [`crate::layout::bootstrap_config`]).")]
        #[derive(Clone, Debug, Serialize, Deserialize)]
        pub struct $ty(pub Option<String>);

        impl Asset for $ty {
            const ID: &'static str = $id;
            const NAME: &'static str = $name;

            fn dependencies() -> Vec<Dep> {
                bootstrap_deps()
            }

            fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
                let ic = &parents.get::<InstallConfigAsset>()?.config;
                let enabled: fn(&InstallConfig) -> Result<bool, BoxError> = $enabled;
                if !enabled(ic)? {
                    return Ok($ty(None));
                }
                Ok($ty(Some(build_bootstrap(parents, $variant)?)))
            }

            fn files(&self) -> Vec<File> {
                self.0
                    .iter()
                    .map(|json| {
                        File::secret(crate::layout::bootstrap_config($variant), json.as_bytes())
                    })
                    .collect()
            }
        }
    };
}

bootstrap_asset!(
    BootstrapIgnition,
    Variant::Bootstrap,
    "ignition/bootstrap",
    "Bootstrap Ignition Config",
    |ic| Ok(ic.bootstrap_pivot.is_none())
);
bootstrap_asset!(
    PivotIgnition,
    Variant::Pivot,
    "ignition/bootstrap-pivot",
    "Bootstrap Pivot Ignition Config",
    |ic| Ok(ic.bootstrap_pivot.is_some())
);
bootstrap_asset!(
    SingleNodeIgnition,
    Variant::SingleNode,
    "ignition/single-node",
    "Single Node Bootstrap In Place Ignition Config",
    |ic| {
        let errors = installconfig::validate_single_node(ic);
        if errors.is_empty() {
            Ok(true)
        } else {
            Err(Error::SingleNodeConfig(errors).into())
        }
    }
);
