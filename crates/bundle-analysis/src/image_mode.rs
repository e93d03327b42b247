//! Install-time image mode in a bundle: which OS image each pool was told to boot, which image
//! its rendered config carries, and which image its gathered hosts booted.
//!
//! With image mode on, okd-install writes per pool a MachineConfig
//! `99-<pool>-okd-install-os-image` whose `spec.osImageURL` is the pool's pre-built image. The
//! analysis takes that image (the "told" image) from bootstrap.ign's copy on the bootstrap
//! host (`rendered-assets/openshift/openshift/`), else from the cluster's MachineConfigs, else
//! from a MachineOSConfig's pre-built-image annotation, and compares with it:
//!
//! - each rendered config of the pool: the one the bootstrap machine-config server serves
//!   (`bootstrap/os-image/served-os-images.txt`) and the pool's current configuration in the
//!   cluster (`resources/machineconfigpools.json` → `resources/machineconfigs.json`). Another
//!   image there means the machine-config controller did not merge okd-install's override;
//! - the image each gathered host of the pool booted, by rpm-ostree (or bootc) status in
//!   `control-plane/<host>/os-image/`. The gather reaches the masters only, so only the master
//!   pool has hosts.
//!
//! A bundle without any OS-image MachineConfig (image mode off) yields nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::booted::{self, Deployment, HostDeployments, OsTool};
use super::bundle::{BundleFile, Wanted};
use super::evidence::{MachineOsState, host_of, items};
use super::image_ref::ImageRef;

/// Suffix of the name of okd-install's OS-image MachineConfig, `99-<pool>-okd-install-os-image`.
pub(crate) use contract::OS_IMAGE_CONFIG_SUFFIX;

/// The label that ties a MachineConfig to its pool.
const ROLE_LABEL: &str = "machineconfiguration.openshift.io/role";

/// The pool of the hosts under `control-plane/` (the only hosts besides the bootstrap host
/// that the gather reaches).
const CONTROL_PLANE_POOL: &str = contract::MASTER_POOL;

/// Image mode as the bundle shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ImageModeState {
    /// One entry per pool told to boot a pre-built image, sorted by pool.
    pub pools: Vec<PoolOsImage>,
    /// A rendered config or a host that does not carry its pool's image.
    pub problems: Vec<ImageModeProblem>,
    /// Evidence that was missing or unreadable (an OS tool absent from a host, say).
    pub notes: Vec<String>,
}

/// One pool: the image it was told to boot, and what its configs and hosts show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PoolOsImage {
    /// `master`, `worker`, ...
    pub pool: String,
    /// The image the pool was told to boot.
    pub told: ToldImage,
    /// The pool's rendered configs found in the bundle.
    pub rendered: Vec<RenderedOsImage>,
    /// The gathered hosts of the pool and what they booted.
    pub hosts: Vec<HostOsImage>,
}

/// The image a pool was told to boot, and where the analysis read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToldImage {
    /// The image reference, e.g. `registry/repo@sha256:...`.
    pub image: String,
    /// The file inside the bundle.
    pub file: String,
    /// The object in it, e.g. `MachineConfig 99-master-okd-install-os-image`.
    pub object: String,
}

/// Where a pool's rendered config was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RenderedBy {
    /// Among the configs the bootstrap machine-config server serves to first-booting nodes.
    BootstrapServer,
    /// As the configuration of the cluster's MachineConfigPool.
    Cluster,
}

impl RenderedBy {
    /// Completes "rendered config X ...".
    pub fn label(self) -> &'static str {
        match self {
            RenderedBy::BootstrapServer => "served by the bootstrap machine-config server",
            RenderedBy::Cluster => "of the cluster's MachineConfigPool",
        }
    }
}

/// A rendered config of a pool and the OS image it carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RenderedOsImage {
    /// `rendered-<pool>-<hash>`.
    pub config: String,
    /// Its `spec.osImageURL`, when known.
    pub image: Option<String>,
    /// Where it was found.
    pub by: RenderedBy,
    /// The file inside the bundle that says so.
    pub file: String,
    /// Whether `image` is the pool's told image.
    pub matches: bool,
}

/// What one host booted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostOsImage {
    /// The host as the gather reached it (`control-plane/<host>/`).
    pub host: String,
    /// The tool whose status was read.
    pub tool: OsTool,
    /// The booted deployment: its image reference as the tool wrote it, or what it is when
    /// not from an image.
    pub booted: String,
    /// The booted image's digest when the tool reports it apart from the reference.
    pub booted_digest: Option<String>,
    /// The deployment staged for the next boot, if any.
    pub staged: Option<String>,
    /// Whether the staged deployment is the told image: a reboot would finish the job.
    pub staged_matches: bool,
    /// The status file inside the bundle.
    pub file: String,
    /// Whether the booted image is the pool's told image.
    pub matches: bool,
}

/// A place where the pool's image did not arrive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ImageModeProblem {
    /// A rendered config of the pool carries another OS image than the pool was told.
    RenderedOther {
        /// The pool.
        pool: String,
        /// The rendered config.
        config: String,
        /// Where it was found.
        by: RenderedBy,
        /// The pool's told image.
        told: String,
        /// The config's osImageURL (`None`: it has none).
        rendered: Option<String>,
    },
    /// A host of the pool booted another image than its pool was told.
    BootedOther {
        /// The pool.
        pool: String,
        /// The host.
        host: String,
        /// The pool's told image.
        told: String,
        /// What the host booted.
        booted: String,
        /// The tool that said so.
        tool: OsTool,
        /// The told image is staged for the host's next boot.
        staged_told: bool,
    },
}

impl ImageModeProblem {
    /// One sentence naming the image, the place and what it has instead.
    pub fn summary(&self) -> String {
        match self {
            ImageModeProblem::RenderedOther {
                pool,
                config,
                by,
                told,
                rendered,
            } => format!(
                "the rendered config {config} of pool {pool}, {}, carries {}, not the OS image \
                 {told} the pool was told to boot",
                by.label(),
                rendered
                    .as_deref()
                    .map_or("no osImageURL".to_string(), |r| format!("OS image {r}"))
            ),
            ImageModeProblem::BootedOther {
                pool,
                host,
                told,
                booted,
                tool,
                ..
            } => format!(
                "host {host} of pool {pool} booted {booted} ({}), not the OS image {told} its \
                 pool was told to boot",
                tool.name()
            ),
        }
    }

    /// The likely cause, and what to check.
    pub fn hint(&self) -> &'static str {
        match self {
            ImageModeProblem::RenderedOther { .. } => {
                "the machine-config controller did not merge okd-install's OS-image \
                 MachineConfig into the pool's config: check that bootstrap.ign carried \
                 openshift/99_openshift-machineconfig_99-<pool>-okd-install-os-image.yaml \
                 (rendered-assets/openshift/openshift/ in the bundle), that its role label names \
                 the pool, and that no MachineConfig sorting after it by name sets another \
                 osImageURL (the last one wins)"
            }
            ImageModeProblem::BootedOther {
                staged_told: true, ..
            } => {
                "the image is staged but the host has not rebooted into it yet: the first-boot \
                 machine-config daemon reboots once the rebase is done; look at `journalctl -u \
                 machine-config-daemon-firstboot` on the host, or reboot it"
            }
            ImageModeProblem::BootedOther { .. } => {
                "the node did not apply its pool's OS image: on the host, `rpm-ostree status` \
                 and `journalctl -u machine-config-daemon-firstboot` show whether the rebase \
                 ran and why it failed; check that the pull secret holds credentials for the \
                 image's registry and that the host reaches that registry (DNS, proxy, \
                 firewall; in a disconnected install, a mirror of the image's repository)"
            }
        }
    }
}

/// The image-mode state of the bundle, or `None` when no pool was told to boot an image.
pub(crate) fn image_mode(
    files: &[BundleFile],
    machine_os: Option<&MachineOsState>,
) -> Option<ImageModeState> {
    let mut notes = Vec::new();
    let cluster = ClusterConfigs::read(files, &mut notes);
    let told = told_images(files, &cluster, machine_os, &mut notes);
    if told.is_empty() {
        return None;
    }
    // Not yet compared with the told image (`matches` false): pool_state compares them.
    let mut rendered = served_configs(files);
    rendered.extend(cluster.rendered());
    let hosts = booted_hosts(files, &mut notes);
    let pools: Vec<PoolOsImage> = told
        .into_iter()
        .map(|(pool, told)| pool_state(pool, told, &rendered, &hosts))
        .collect();
    let problems = pools.iter().flat_map(problems_of).collect();
    Some(ImageModeState {
        pools,
        problems,
        notes,
    })
}

/// A MachineConfig, as far as image mode cares.
#[derive(Debug, Deserialize)]
struct MachineConfig {
    #[serde(default)]
    metadata: Metadata,
    #[serde(default)]
    spec: MachineConfigSpec,
}

#[derive(Debug, Default, Deserialize)]
struct Metadata {
    #[serde(default)]
    name: String,
    #[serde(default)]
    labels: BTreeMap<String, String>,
}

#[derive(Debug, Default, Deserialize)]
struct MachineConfigSpec {
    #[serde(rename = "osImageURL")]
    os_image_url: Option<String>,
}

impl MachineConfig {
    /// `spec.osImageURL`, unless empty (most MachineConfigs leave it so).
    fn os_image(&self) -> Option<&str> {
        self.spec.os_image_url.as_deref().filter(|i| !i.is_empty())
    }

    /// The pool of okd-install's OS-image MachineConfig; `None` for any other MachineConfig.
    fn os_image_pool(&self) -> Option<String> {
        let from_name = self
            .metadata
            .name
            .strip_suffix(OS_IMAGE_CONFIG_SUFFIX)?
            .strip_prefix("99-");
        self.metadata
            .labels
            .get(ROLE_LABEL)
            .map(String::as_str)
            .or(from_name)
            .map(str::to_string)
    }
}

/// A MachineConfigPool, as far as image mode cares.
#[derive(Debug, Deserialize)]
struct MachineConfigPool {
    #[serde(default)]
    metadata: Metadata,
    status: Option<PoolConfiguration>,
    spec: Option<PoolConfiguration>,
}

#[derive(Debug, Deserialize)]
struct PoolConfiguration {
    configuration: Option<ConfigurationName>,
}

#[derive(Debug, Deserialize)]
struct ConfigurationName {
    name: Option<String>,
}

impl MachineConfigPool {
    /// The rendered config the pool's nodes run (its status), else the one they are to run
    /// (its spec).
    fn rendered_config(&self) -> Option<&str> {
        [&self.status, &self.spec]
            .into_iter()
            .flatten()
            .find_map(|p| p.configuration.as_ref()?.name.as_deref())
            .filter(|n| !n.is_empty())
    }
}

/// The cluster's MachineConfigs and pools, when the API answered during the gather.
#[derive(Default)]
struct ClusterConfigs {
    configs: Vec<MachineConfig>,
    configs_file: String,
    pools: Vec<MachineConfigPool>,
}

impl ClusterConfigs {
    fn read(files: &[BundleFile], notes: &mut Vec<String>) -> ClusterConfigs {
        let mut cluster = ClusterConfigs::default();
        for file in files {
            match file.kind {
                Wanted::MachineConfigs => {
                    if let Some(list) = read_list(file, notes) {
                        cluster.configs = list;
                        cluster.configs_file = file.path.clone();
                    }
                }
                Wanted::MachineConfigPools => {
                    cluster.pools = read_list(file, notes).unwrap_or_default();
                }
                _ => {}
            }
        }
        cluster
    }

    /// The rendered config each pool runs in the cluster, with its OS image.
    fn rendered(&self) -> Vec<(String, RenderedOsImage)> {
        self.pools
            .iter()
            .filter_map(|pool| {
                let config = pool.rendered_config()?;
                let image = self
                    .configs
                    .iter()
                    .find(|c| c.metadata.name == config)
                    .and_then(MachineConfig::os_image)
                    .map(str::to_string);
                let rendered = RenderedOsImage {
                    config: config.to_string(),
                    image,
                    by: RenderedBy::Cluster,
                    file: self.configs_file.clone(),
                    matches: false,
                };
                Some((pool.metadata.name.clone(), rendered))
            })
            .collect()
    }
}

/// The objects of an `oc get -o json` dump in `file`, each read as a `T`; `None` (and a note)
/// when the dump or one of its objects does not read.
fn read_list<T: serde::de::DeserializeOwned>(
    file: &BundleFile,
    notes: &mut Vec<String>,
) -> Option<Vec<T>> {
    let read = items(&file.text)
        .and_then(|objects| objects.into_iter().map(serde_json::from_value).collect());
    match read {
        Ok(list) => Some(list),
        Err(e) => {
            notes.push(format!("could not read {}: {e}", file.path));
            None
        }
    }
}

/// A YAML document of the bundle read as a `T`, its strings escaped ([`crate::shown`]).
fn yaml<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    let mut value: serde_json::Value = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
    crate::shown::escape_document(&mut value);
    serde_json::from_value(value).map_err(|e| e.to_string())
}

/// The told image of every pool, by pool: bootstrap.ign's copy of the OS-image MachineConfig,
/// else the cluster's, else a MachineOSConfig's pre-built image. Differing copies get a note.
fn told_images(
    files: &[BundleFile],
    cluster: &ClusterConfigs,
    machine_os: Option<&MachineOsState>,
    notes: &mut Vec<String>,
) -> BTreeMap<String, ToldImage> {
    let mut told: BTreeMap<String, ToldImage> = BTreeMap::new();
    let bootstrap_copies: Vec<(MachineConfig, &str)> = files
        .iter()
        .filter(|f| f.kind == Wanted::OsImageConfig)
        .filter_map(|f| match yaml::<MachineConfig>(&f.text) {
            Ok(mc) => Some((mc, f.path.as_str())),
            Err(e) => {
                notes.push(format!("could not read {}: {e}", f.path));
                None
            }
        })
        .collect();
    let cluster_copies = cluster
        .configs
        .iter()
        .map(|mc| (mc, cluster.configs_file.as_str()));
    let copies = bootstrap_copies
        .iter()
        .map(|(mc, file)| (mc, *file))
        .chain(cluster_copies);
    for (mc, file) in copies {
        let (Some(pool), Some(image)) = (mc.os_image_pool(), mc.os_image()) else {
            continue;
        };
        let image = image.to_string();
        let object = format!("MachineConfig {}", mc.metadata.name);
        match told.get(&pool) {
            Some(first) if first.image != image => notes.push(format!(
                "{object} in {file} names {image}, but {} in {} names {}; the analysis \
                 compares with the latter",
                first.object, first.file, first.image
            )),
            Some(_) => {}
            None => {
                told.insert(
                    pool,
                    ToldImage {
                        image,
                        file: file.to_string(),
                        object,
                    },
                );
            }
        }
    }
    let mosc_file = files
        .iter()
        .find(|f| f.kind == Wanted::MachineOsConfigs)
        .map(|f| f.path.clone())
        .unwrap_or_default();
    for config in machine_os.iter().flat_map(|m| &m.configs) {
        let (Some(pool), Some(image)) = (&config.pool, &config.pre_built_image) else {
            continue;
        };
        told.entry(pool.clone()).or_insert_with(|| ToldImage {
            image: image.clone(),
            file: mosc_file.clone(),
            object: format!(
                "MachineOSConfig {} (pre-built-image annotation)",
                config.name
            ),
        });
    }
    told
}

/// The configs the bootstrap machine-config server serves: `<pool> <config> <image>` lines,
/// `-` for what the gather could not find.
fn served_configs(files: &[BundleFile]) -> Vec<(String, RenderedOsImage)> {
    let known = |s: &str| (s != "-").then(|| s.to_string());
    files
        .iter()
        .filter(|f| f.kind == Wanted::ServedOsImages)
        .flat_map(|f| {
            f.text.lines().filter_map(|line| {
                let mut fields = line.split_whitespace();
                let pool = fields.next()?.to_string();
                let rendered = RenderedOsImage {
                    config: known(fields.next()?)?,
                    image: fields.next().and_then(known),
                    by: RenderedBy::BootstrapServer,
                    file: f.path.clone(),
                    matches: false,
                };
                Some((pool, rendered))
            })
        })
        .collect()
}

/// What a host booted, by the first tool whose status could be read.
#[derive(Debug)]
struct HostBoot {
    host: String,
    tool: OsTool,
    file: String,
    deployments: HostDeployments,
}

/// Every gathered host but the bootstrap host (which belongs to no pool), with notes for the
/// tools a host lacks and the status files that could not be read.
fn booted_hosts(files: &[BundleFile], notes: &mut Vec<String>) -> Vec<HostBoot> {
    let mut by_host: BTreeMap<String, Vec<&BundleFile>> = BTreeMap::new();
    for f in files {
        if matches!(f.kind, Wanted::OsStatus(_) | Wanted::OsToolAbsent(_)) {
            let host = host_of(&f.path);
            if host != "bootstrap" {
                by_host.entry(host).or_default().push(f);
            }
        }
    }
    let mut hosts = Vec::new();
    for (host, host_files) in by_host {
        let mut boot: Option<HostBoot> = None;
        for tool in OsTool::ALL {
            for f in &host_files {
                if f.kind == Wanted::OsToolAbsent(tool) {
                    notes.push(format!(
                        "{} is not installed on {host} ({})",
                        tool.name(),
                        f.path
                    ));
                    continue;
                }
                if f.kind != Wanted::OsStatus(tool) {
                    continue;
                }
                match booted::parse_status(tool, &f.text) {
                    Ok(deployments) if boot.is_none() => {
                        boot = Some(HostBoot {
                            host: host.clone(),
                            tool,
                            file: f.path.clone(),
                            deployments,
                        });
                    }
                    Ok(_) => {}
                    Err(e) => notes.push(format!("could not read {}: {e}", f.path)),
                }
            }
        }
        match boot {
            Some(b) => hosts.push(b),
            None => notes.push(format!(
                "which OS image {host} booted is unknown: neither rpm-ostree nor bootc status \
                 could be read there"
            )),
        }
    }
    hosts
}

/// The reference a deployment names, for comparing it with the told image.
fn deployment_is(deployment: &Deployment, told: &ImageRef) -> bool {
    match deployment {
        Deployment::Image { reference, digest } => {
            ImageRef::parse(reference).is_told(digest.as_deref(), told)
        }
        Deployment::Commit(_) => false,
    }
}

/// How a deployment is shown: its reference, or what it is when not from an image.
fn describe(deployment: &Deployment) -> String {
    match deployment {
        Deployment::Image { reference, .. } => reference.clone(),
        Deployment::Commit(what) => format!("{what} (an OSTree commit, not a container image)"),
    }
}

fn pool_state(
    pool: String,
    told: ToldImage,
    rendered: &[(String, RenderedOsImage)],
    hosts: &[HostBoot],
) -> PoolOsImage {
    let wanted = ImageRef::parse(&told.image);
    let mut configs: Vec<RenderedOsImage> = Vec::new();
    for (_, r) in rendered.iter().filter(|(p, _)| *p == pool) {
        // The cluster usually runs the config the bootstrap host served: show it once.
        if configs
            .iter()
            .any(|c| c.config == r.config && c.image == r.image)
        {
            continue;
        }
        let matches = r
            .image
            .as_deref()
            .is_some_and(|i| ImageRef::parse(i).is_told(None, &wanted));
        configs.push(RenderedOsImage {
            matches,
            ..r.clone()
        });
    }
    let pool_hosts = hosts
        .iter()
        .filter(|_| pool == CONTROL_PLANE_POOL)
        .map(|h| {
            let booted = &h.deployments.booted;
            let staged = h.deployments.staged.as_ref();
            HostOsImage {
                host: h.host.clone(),
                tool: h.tool,
                booted: describe(booted),
                booted_digest: match booted {
                    Deployment::Image { digest, .. } => digest.clone(),
                    Deployment::Commit(_) => None,
                },
                staged: staged.map(describe),
                staged_matches: staged.is_some_and(|s| deployment_is(s, &wanted)),
                file: h.file.clone(),
                matches: deployment_is(booted, &wanted),
            }
        })
        .collect();
    PoolOsImage {
        pool,
        told,
        rendered: configs,
        hosts: pool_hosts,
    }
}

fn problems_of(pool: &PoolOsImage) -> Vec<ImageModeProblem> {
    let rendered =
        pool.rendered
            .iter()
            .filter(|r| !r.matches)
            .map(|r| ImageModeProblem::RenderedOther {
                pool: pool.pool.clone(),
                config: r.config.clone(),
                by: r.by,
                told: pool.told.image.clone(),
                rendered: r.image.clone(),
            });
    let booted = pool
        .hosts
        .iter()
        .filter(|h| !h.matches)
        .map(|h| ImageModeProblem::BootedOther {
            pool: pool.pool.clone(),
            host: h.host.clone(),
            told: pool.told.image.clone(),
            booted: h.booted.clone(),
            tool: h.tool,
            staged_told: h.staged_matches,
        });
    rendered.chain(booted).collect()
}
