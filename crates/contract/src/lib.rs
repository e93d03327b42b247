//! The names the bootstrap node's scripts and okd-install's readers share.
//!
//! `templates/bootstrap/` writes stage markers, service records, a ConfigMap and a log bundle
//! on the node; `wait-for`, `gather` and `verify` read them back, and
//! the assets write files those readers open again. Each such name is defined here once, so a
//! reader cannot drift from the writer: the tests of this crate read the templates and fail
//! when a name here is not what they use.
//!
//! This crate is a leaf (serde is its only dependency): a reader names what the node writes
//! without compiling the templates or the Ignition model.

#![deny(missing_docs)]

pub mod cause;
pub mod create_failure;
pub mod registry_error;
pub use cause::Cause;

/// Each render stage of the bootstrap's `bootkube.sh`, in run order, with the podman container
/// (`--name`) its render runs in: the stage names mark `<stage>.done` and the service records,
/// the container names the output a failed stage leaves. One table for the templates' tests and
/// the gather analysis.
pub const BOOTKUBE_RENDER_STAGES: &[(&str, &str)] = &[
    ("api-bootstrap", "api-render"),
    ("auth-api-bootstrap", "auth-api-render"),
    ("config-bootstrap", "config-render"),
    ("cvo-bootstrap", "cvo-render"),
    ("etcd-bootstrap", "etcd-render"),
    ("kube-apiserver-bootstrap", "kube-apiserver-render"),
    (
        "kube-controller-manager-bootstrap",
        "kube-controller-render",
    ),
    ("kube-scheduler-bootstrap", "kube-scheduler-render"),
    ("ingress-operator-bootstrap", "ingress-render"),
    ("node-tuning-bootstrap", "node-tuning-render"),
    ("mco-bootstrap", "mco-render"),
    ("cco-bootstrap", "cco-render"),
];

/// The stage `bootkube.sh` runs before the renders: it copies `openshift/` into `manifests/`.
pub const BOOTKUBE_MANIFESTS_STAGE: &str = "openshift-manifests";

/// node-image-pull.sh's stage that runs the release image to look the node image up in it:
/// a pull failing there is the release image's, not the node image's.
pub const NODE_IMAGE_LOOKUP_STAGE: &str = "resolve-node-image";

/// What node-image-pull.sh says as it enters [`NODE_IMAGE_LOOKUP_STAGE`], followed by the
/// release image's pull spec: a pull failing in that stage is the release image's when it
/// names that image, else a component's the lookup runs (the machine-config operator's).
pub const NODE_IMAGE_LOOKUP_SAYS: &str = "Looking up the node image in the release image ";

/// `bootkube.sh`'s stages before cluster-bootstrap, in run order: the manifests copy, then the
/// renders of [`BOOTKUBE_RENDER_STAGES`]: the first part of what a gathered bootstrap host
/// records.
pub fn bootkube_stages_to_render() -> Vec<&'static str> {
    std::iter::once(BOOTKUBE_MANIFESTS_STAGE)
        .chain(BOOTKUBE_RENDER_STAGES.iter().map(|(stage, _)| *stage))
        .collect()
}

/// Units `bootstrap.ign` (and its variants) enables when a processed template directory
/// provides them; every other unit only runs when an enabled one pulls it in (bootkube.service
/// through progress.service's Wants, say). Only units the templates ship belong here: a name
/// without a unit file would tell a reader the bootstrap has a piece it does not.
pub const ENABLED_UNITS: [&str; 7] = [
    "progress.service",
    "kubelet.service",
    "approve-csr.service",
    "chown-gatewayd-key.service",
    "systemd-journal-gatewayd.socket",
    "install-to-disk.service",
    "bootstrap-pivot.service",
];

/// Where the bootstrap config puts the log-bundle script; `gather` runs it over SSH.
pub const GATHER_SCRIPT: &str = "/usr/local/bin/installer-gather.sh";

/// The file of a log bundle naming the registries the bootstrap host's pull secret has
/// credentials for, one a line (names only): the gather script writes it, the analysis
/// tells with it a registry's 401 for missing credentials from one for refused ones.
pub const PULL_SECRET_REGISTRIES_FILE: &str = "bootstrap/network/pull-secret-registries.txt";

/// The directory of a log bundle holding the bootstrap host's registries.conf and its
/// registries.conf.d drop-ins, as the host had them: the mirror routing its pulls took,
/// which names the registry of a pull error that does not (a blob's names its digest only).
pub const REGISTRIES_CONF_DIR: &str = "bootstrap/registries";

/// The start of the gather script's last line, `The bundle is at PATH`: the login directory,
/// or a memory file system when the disk had no room for the bundle; `gather` downloads the
/// file it names.
pub const GATHER_BUNDLE_AT: &str = "The bundle is at ";

/// The start of the gather script's line for a place it could not write the bundle to, the
/// words of tar or gzip after it (`Cannot write the bundle to PATH: gzip: stdout: No space
/// left on device`);
/// `gather` shows these lines when the bundle was written elsewhere, or not at all.
pub const GATHER_BUNDLE_UNWRITABLE: &str = "Cannot write the bundle to ";

/// The admin kubeconfig in the asset directory: written by `create` (the PKI's kubeconfig
/// table), read by `wait-for` when no `--kubeconfig` is given.
pub const ADMIN_KUBECONFIG_FILE: &str = "auth/kubeconfig";

/// The kubeadmin password in the asset directory: written by `create`, read by `wait-for`
/// (to print the console login) and `verify` (to check it against the cluster's hash).
pub const KUBEADMIN_PASSWORD_FILE: &str = "auth/kubeadmin-password";

/// The bootstrap configs in the asset directory: written by `create` (`ignition`'s
/// `Variant::file_name`), read by `verify` and the boot-media commands. The rest of the directory's names are in `assets::layout`, which lists these too.
pub const BOOTSTRAP_IGN_FILE: &str = "bootstrap.ign";
/// The single node's config (bootstrap in place); see [`BOOTSTRAP_IGN_FILE`].
pub const SINGLE_NODE_IGN_FILE: &str = "bootstrap-in-place-for-live-iso.ign";
/// The config of a bootstrap host that pivots into a control-plane node; see
/// [`BOOTSTRAP_IGN_FILE`].
pub const PIVOT_IGN_FILE: &str = "bootstrap-pivot.ign";

/// The DNS names of a cluster, derived from `metadata.name` and `baseDomain` in one place
/// (installconfig's `InstallConfig::names`, once per read install-config): the certificates'
/// SANs, the manifests, the pointer configs, the bootstrap templates (`names.api`,
/// `names.api_int`) and the readers that connect to or check them (`wait-for`, `verify`) all
/// take this value as it is, so none can drop the trailing dot of `baseDomain` differently or
/// spell `api-int.` another way.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterNames {
    /// `metadata.name`: also the kubeconfigs' cluster name.
    pub cluster_name: String,
    /// `baseDomain` without a trailing dot.
    pub base_domain: String,
    /// `<metadata.name>.<baseDomain>`: the parent of api, api-int and *.apps.
    pub cluster_domain: String,
    /// `api.<cluster domain>`: the API name clients outside the cluster use.
    pub api: String,
    /// `api-int.<cluster domain>`: the API name nodes use (and the machine-config server's).
    pub api_int: String,
}

impl ClusterNames {
    /// The names of cluster `name` under `base_domain` (a trailing dot is dropped, by
    /// [`ClusterNames::base_domain_of`]).
    pub fn new(name: &str, base_domain: &str) -> ClusterNames {
        let base_domain = ClusterNames::base_domain_of(base_domain).to_string();
        let cluster_domain = format!("{name}.{base_domain}");
        ClusterNames {
            cluster_name: name.to_string(),
            api: format!("api.{cluster_domain}"),
            api_int: format!("api-int.{cluster_domain}"),
            base_domain,
            cluster_domain,
        }
    }

    /// `baseDomain` as the names use it: without the trailing dot of a fully-qualified name,
    /// which does not belong in certificates and URLs. The one place that rule is stated
    /// (the install-config's defaulting applies it too, so every output agrees).
    pub fn base_domain_of(base_domain: &str) -> &str {
        base_domain.trim_end_matches('.')
    }
}

/// The control-plane machine pool and node role (`controlPlane` is always this pool).
pub const MASTER_POOL: &str = "master";
/// The default compute machine pool and node role.
pub const WORKER_POOL: &str = "worker";
/// The arbiter machine pool and node role (two nodes with an arbiter).
pub const ARBITER_POOL: &str = "arbiter";
/// The node roles a pointer config and a MachineConfig are made for, in that order.
pub const ROLES: [&str; 3] = [MASTER_POOL, WORKER_POOL, ARBITER_POOL];

/// systemd unit types Ignition accepts as a unit name suffix: the bootstrap config's check
/// and `gather`'s reading of unit names in the host's output both use it.
pub const UNIT_SUFFIXES: [&str; 12] = [
    ".service",
    ".socket",
    ".device",
    ".mount",
    ".automount",
    ".swap",
    ".target",
    ".path",
    ".timer",
    ".snapshot",
    ".slice",
    ".scope",
];

/// What ends the name of okd-install's OS-image MachineConfig of a pool (image mode).
pub const OS_IMAGE_CONFIG_SUFFIX: &str = "-okd-install-os-image";

/// Name of the MachineConfig that sets the OS image of `pool` in image mode:
/// `99-<pool>-okd-install-os-image`. The `99-` prefix sorts it after the release's own
/// MachineConfigs, so the machine-config controller lets its `osImageURL` win.
pub fn os_image_config_name(pool: &str) -> String {
    format!("99-{pool}{OS_IMAGE_CONFIG_SUFFIX}")
}

/// The pool an OS-image MachineConfig name is for, or `None` when `name` is not one.
pub fn os_image_config_pool(name: &str) -> Option<&str> {
    name.strip_prefix("99-")?
        .strip_suffix(OS_IMAGE_CONFIG_SUFFIX)
        .filter(|pool| !pool.is_empty())
}

/// The pivoting bootstrap host's steps and the ConfigMap it publishes them in
/// (`bootstrap-pivot.sh`), which `wait-for bootstrap-complete` reads.
pub mod pivot {
    /// Namespace of the ConfigMap the pivot script publishes its step in.
    pub const CONFIG_MAP_NAMESPACE: &str = "kube-system";
    /// Name of that ConfigMap.
    pub const CONFIG_MAP_NAME: &str = "bootstrap-pivot";
    /// Its key holding the running (or failed) step's name.
    pub const KEY_STAGE: &str = "stage";
    /// Its key holding `<step>: exit status N` while a step has failed, empty otherwise.
    pub const KEY_FAILURE: &str = "failure";
    /// Its key set to `set` once the etcd override is applied.
    pub const KEY_ETCD_OVERRIDE: &str = "etcdOverride";
    /// The key the script puts into the etcd operator's `spec.unsupportedConfigOverrides`;
    /// `wait-for` removes it once three control-plane nodes are Ready.
    pub const ETCD_OVERRIDE_KEY: &str = "useUnsupportedUnsafeNonHANonProductionUnstableEtcd";

    /// One step of the pivot, in run order; each also names its `<step>.done` marker and its
    /// service-record stage.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum PivotStep {
        /// Let etcd run with fewer members than HA needs.
        AllowReducedEtcd,
        /// Wait until the other control-plane nodes are Ready.
        WaitForMasters,
        /// Wait until bootkube.sh is done.
        WaitForBootkube,
        /// Write the master pointer config.
        PointerConfig,
        /// Install the OS to the installation disk.
        CoreosInstaller,
        /// Reboot into the installed system.
        Reboot,
    }

    impl PivotStep {
        /// Every step, in the order the script runs them.
        pub const ALL: [PivotStep; 6] = [
            PivotStep::AllowReducedEtcd,
            PivotStep::WaitForMasters,
            PivotStep::WaitForBootkube,
            PivotStep::PointerConfig,
            PivotStep::CoreosInstaller,
            PivotStep::Reboot,
        ];

        /// The name the script publishes and records.
        pub const fn name(self) -> &'static str {
            match self {
                PivotStep::AllowReducedEtcd => "pivot-allow-reduced-etcd",
                PivotStep::WaitForMasters => "pivot-wait-for-masters",
                PivotStep::WaitForBootkube => "pivot-wait-for-bootkube",
                PivotStep::PointerConfig => "pivot-pointer-config",
                PivotStep::CoreosInstaller => "pivot-coreos-installer",
                PivotStep::Reboot => "reboot",
            }
        }

        /// The step a published name stands for; `None` for a name this build does not know
        /// (a script from another version, say).
        pub fn from_name(name: &str) -> Option<PivotStep> {
            PivotStep::ALL.into_iter().find(|s| s.name() == name)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::pivot::{self, PivotStep};

    fn templates() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../templates/bootstrap")
    }

    fn read(rel: &str) -> String {
        let path = templates().join(rel);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The template directories `bootstrap.ign` and its variants are built from.
    const DIRS: [&str; 4] = ["common", "on-prem", "single-node", "pivot"];

    /// Every stage runs in this order in bootkube.sh, its function starts the named container.
    #[test]
    fn the_node_image_lookup_stage_is_what_node_image_pull_sh_records() {
        let script = read("common/files/usr/local/bin/node-image-pull.sh.j2");
        let marker = format!(
            "record_service_stage_start \"{}\"",
            super::NODE_IMAGE_LOOKUP_STAGE
        );
        assert!(script.contains(&marker), "{marker}");
        let says = format!(
            "{marker}\necho \"{}${{RELEASE_IMAGE_DIGEST}}\"\n",
            super::NODE_IMAGE_LOOKUP_SAYS
        );
        assert_eq!(script.matches(&says).count(), 2, "{says}");
    }

    #[test]
    fn the_render_stages_are_what_bootkube_sh_runs() {
        let script = read("common/files/usr/local/bin/bootkube.sh.j2");
        assert!(script.contains(&format!("\nrun_stage {} ", super::BOOTKUBE_MANIFESTS_STAGE)));
        let mut from = 0;
        for (stage, container) in super::BOOTKUBE_RENDER_STAGES {
            let call = format!("\nrun_stage {stage} stage_");
            let at = script[from..]
                .find(&call)
                .unwrap_or_else(|| panic!("{call:?} missing or out of order"));
            from += at + call.len();
            let function = format!("stage_{}() {{", stage.replace('-', "_"));
            let body_at = script
                .find(&function)
                .unwrap_or_else(|| panic!("{function} missing"));
            let body_end = body_at + script[body_at..].find("\n}\n").unwrap();
            assert!(
                script[body_at..body_end].contains(&format!("--name {container} ")),
                "{function} does not run container {container}"
            );
        }
        let stages = super::bootkube_stages_to_render();
        assert_eq!(stages[0], super::BOOTKUBE_MANIFESTS_STAGE);
        assert_eq!(stages.len(), super::BOOTKUBE_RENDER_STAGES.len() + 1);
    }

    /// The steps run in this order, and nothing else runs as a step.
    #[test]
    fn the_pivot_steps_are_what_bootstrap_pivot_sh_runs() {
        let script = read("pivot/files/usr/local/bin/bootstrap-pivot.sh.j2");
        let run: Vec<&str> = script
            .lines()
            .filter_map(|l| l.strip_prefix("run_once "))
            .filter_map(|rest| rest.split_whitespace().next())
            .collect();
        let ours: Vec<&str> = PivotStep::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(run, ours);
        for step in PivotStep::ALL {
            assert_eq!(PivotStep::from_name(step.name()), Some(step));
        }
        assert_eq!(PivotStep::from_name("pivot-something-else"), None);
    }

    /// The ConfigMap, its keys and the etcd override key are the ones the script writes.
    #[test]
    fn the_pivot_config_map_is_what_bootstrap_pivot_sh_publishes() {
        let script = read("pivot/files/usr/local/bin/bootstrap-pivot.sh.j2");
        for wanted in [
            format!(
                "configmap/{} --namespace {}",
                pivot::CONFIG_MAP_NAME,
                pivot::CONFIG_MAP_NAMESPACE
            ),
            format!(
                "create configmap {} --namespace {}",
                pivot::CONFIG_MAP_NAME,
                pivot::CONFIG_MAP_NAMESPACE
            ),
            format!("\"{}=${{name}}\"", pivot::KEY_STAGE),
            format!("\"{}=${{name}}: exit status", pivot::KEY_FAILURE),
            format!("\"{}=set\"", pivot::KEY_ETCD_OVERRIDE),
            format!("{{\"{}\":true}}", pivot::ETCD_OVERRIDE_KEY),
        ] {
            assert!(
                script.contains(&wanted),
                "bootstrap-pivot.sh lacks {wanted}"
            );
        }
    }

    /// Each enabled unit has a unit file in a template directory, and that file can be
    /// enabled (an `[Install]` section); no other template unit has one.
    #[test]
    fn enabled_units_are_the_template_units_that_install() {
        let mut installable = Vec::new();
        for dir in DIRS {
            let units = templates().join(dir).join("units");
            let Ok(entries) = std::fs::read_dir(&units) else {
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let file = path.file_name().unwrap().to_str().unwrap();
                let name = file.strip_suffix(".j2").unwrap_or(file).to_string();
                if text.lines().any(|l| l.trim() == "[Install]") {
                    installable.push(name);
                }
            }
        }
        installable.sort();
        let mut enabled: Vec<String> = super::ENABLED_UNITS.map(String::from).to_vec();
        enabled.sort();
        assert_eq!(enabled, installable);
    }

    /// The gather script is a template file at that node path, and the single-node bootstrap
    /// runs it from there.
    #[test]
    fn the_gather_script_writes_the_pull_secrets_registries() {
        let script = read(&format!("common/files{}.j2", super::GATHER_SCRIPT));
        let target = format!("\"${{ARTIFACTS}}/{}\"", super::PULL_SECRET_REGISTRIES_FILE);
        assert!(script.contains(&target), "{target}");
    }

    /// The gather script copies the host's registries.conf and its drop-ins to the
    /// directory the analysis reads them from.
    #[test]
    fn the_gather_script_writes_the_hosts_registries_conf() {
        let script = read(&format!("common/files{}.j2", super::GATHER_SCRIPT));
        let target = format!("\"${{ARTIFACTS}}/{}", super::REGISTRIES_CONF_DIR);
        assert!(script.contains(&target), "{target}");
        for source in ["/etc/containers/registries.conf", "${REGISTRIES_CONF}.d"] {
            assert!(script.contains(source), "{source}");
        }
    }

    #[test]
    fn the_gather_script_is_where_the_templates_put_it() {
        let rel = format!("common/files{}.j2", super::GATHER_SCRIPT);
        assert!(templates().join(&rel).is_file(), "{rel}");
        let name = Path::new(super::GATHER_SCRIPT).file_name().unwrap();
        let in_place = read("single-node/files/usr/local/bin/bootstrap-in-place.sh");
        assert!(in_place.contains(&format!("${{BIN_DIR}}/{}", name.to_str().unwrap())));
    }

    /// The gather script says where it wrote the bundle, and where it could not, in the
    /// words `gather` reads.
    #[test]
    fn the_gather_script_names_the_bundle_in_the_words_gather_reads() {
        let script = read(&format!("common/files{}.j2", super::GATHER_SCRIPT));
        let at = format!("echo \"{}${{WRITTEN}}\"", super::GATHER_BUNDLE_AT);
        assert!(
            script.trim_end().ends_with(&at),
            "the script's last line is not {at}"
        );
        let unwritable = format!(
            "echo \"{}${{file}}: ${{line}}\"",
            super::GATHER_BUNDLE_UNWRITABLE
        );
        assert!(script.contains(&unwritable), "{unwritable}");
    }

    #[test]
    fn cluster_names_drop_the_trailing_dot_of_the_base_domain_once() {
        let dotted = super::ClusterNames::new("c1", "example.com.");
        assert_eq!(dotted, super::ClusterNames::new("c1", "example.com"));
        assert_eq!(dotted.cluster_name, "c1");
        assert_eq!(dotted.base_domain, "example.com");
        assert_eq!(dotted.cluster_domain, "c1.example.com");
        assert_eq!(dotted.api, "api.c1.example.com");
        assert_eq!(dotted.api_int, "api-int.c1.example.com");
    }

    #[test]
    fn os_image_config_names_round_trip() {
        assert_eq!(
            super::os_image_config_name("worker"),
            "99-worker-okd-install-os-image"
        );
        assert_eq!(
            super::os_image_config_pool("99-infra-okd-install-os-image"),
            Some("infra")
        );
        assert_eq!(
            super::os_image_config_pool("99--okd-install-os-image"),
            None
        );
        assert_eq!(super::os_image_config_pool("99-master-ssh"), None);
        assert_eq!(
            super::os_image_config_pool("10-master-okd-install-os-image"),
            None
        );
    }
}
