//! The few files of a bundle the analysis needs: which they are, and the text kept of each
//! (reading the archive is `reader`'s job).

use super::booted::OsTool;
use super::last_lines;
use contract::OS_IMAGE_CONFIG_SUFFIX;

/// Journals the analysis reads (`.../bootstrap/journals/<unit>.log`); the others are only
/// for people.
pub(crate) const JOURNALS: &[&str] = &[
    "bootkube",
    "release-image",
    "release-image-pivot",
    "node-image-pull",
    "node-image-overlay",
];

/// Cluster dumps the analysis reads (`.../resources/<name>`).
const RESOURCES: &[&str] = &[
    "nodes.json",
    "csr.json",
    "api-unreachable.txt",
    "configmaps.json",
    "namespaces.json",
];

/// The marker bootkube.sh leaves in its asset directory when it ends successfully.
pub(crate) const BOOTKUBE_DONE: &str = ".bootkube.done";

/// How many trailing lines of a container log are kept: the analysis shows the end only.
const LOG_LINES_KEPT: usize = 200;

/// What kind of file the analysis is interested in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Wanted {
    /// `.../bootstrap/services/<name>.json`
    ServiceRecord(String),
    /// `.../failed-units.txt`
    FailedUnits,
    /// `.../bootstrap/journals/<unit>.log` for a unit in [`JOURNALS`]
    Journal(String),
    /// `.../resources/machineosconfigs.json`
    MachineOsConfigs,
    /// `.../resources/machineosbuilds.json`
    MachineOsBuilds,
    /// `.../resources/<name>` for a name in [`RESOURCES`]
    Resource(String),
    /// `.../resources/machineconfigs.json`
    MachineConfigs,
    /// `.../resources/machineconfigpools.json`
    MachineConfigPools,
    /// okd-install's OS-image MachineConfig as bootstrap.ign carried it:
    /// `.../openshift/<...>-okd-install-os-image.yaml` (in `rendered-assets/openshift/`)
    OsImageConfig,
    /// `.../bootstrap/os-image/served-os-images.txt`: each pool's served config and its image
    ServedOsImages,
    /// `.../os-image/<tool>-status.json` of the bootstrap host or a master
    OsStatus(OsTool),
    /// `.../os-image/<tool>-absent.txt`: the host has no such tool
    OsToolAbsent(OsTool),
    /// `.../bootstrap/etcd/member-list.txt`
    EtcdMembers,
    /// A container's inspection: `.../bootstrap/containers/`, `.../bootstrap/pods/` or a
    /// master's `.../control-plane/<host>/containers/`, named `<name>-<id>.inspect`.
    ContainerInspect,
    /// The container's output next to it, `<name>-<id>.log` (only its last lines are kept).
    ContainerLog,
    /// A manifest cluster-bootstrap creates: `.../rendered-assets/openshift/manifests/<file>`
    /// (bootkube.sh copied `openshift/` there; the OS-image MachineConfig is read from its
    /// `openshift/` copy, see [`Wanted::OsImageConfig`]).
    AssetManifest,
    /// `.../rendered-assets/openshift/.bootkube.done`: bootkube.sh's last act.
    BootkubeDone,
    /// [`contract::PULL_SECRET_REGISTRIES_FILE`]: the registries the pull secret has
    /// credentials for.
    PullSecretRegistries,
    /// The host's registries.conf, or a drop-in of its registries.conf.d, under
    /// [`contract::REGISTRIES_CONF_DIR`].
    RegistriesConf,
}

/// One interesting file, with its path inside the archive.
#[derive(Debug, Clone)]
pub(crate) struct BundleFile {
    pub path: String,
    pub kind: Wanted,
    pub text: String,
}

/// Classifies an archive path by its trailing components, so that any top directory
/// (`log-bundle-<ID>/`) and the nested single-node layout (`.../log-bundle-bootstrap/`) work.
pub(crate) fn classify(path: &str) -> Option<Wanted> {
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let tail = |n: usize| parts.len().checked_sub(n).map(|start| &parts[start..]);
    if parts
        .join("/")
        .ends_with(contract::PULL_SECRET_REGISTRIES_FILE)
    {
        return Some(Wanted::PullSecretRegistries);
    }
    if registries_conf(&parts) {
        return Some(Wanted::RegistriesConf);
    }
    if let Some(["bootstrap", dir, file]) = tail(3) {
        match *dir {
            "services" => {
                let name = file.strip_suffix(".json").filter(|n| !n.is_empty())?;
                return Some(Wanted::ServiceRecord(name.to_string()));
            }
            "journals" => {
                let unit = file.strip_suffix(".log")?;
                return JOURNALS
                    .contains(&unit)
                    .then(|| Wanted::Journal(unit.to_string()));
            }
            "containers" | "pods" => return container_file(file),
            "etcd" if *file == "member-list.txt" => return Some(Wanted::EtcdMembers),
            _ => {}
        }
    }
    if let Some(["control-plane", _host, "containers", file]) = tail(4) {
        return container_file(file);
    }
    if let Some(["rendered-assets", "openshift", file]) = tail(3) {
        return (*file == BOOTKUBE_DONE).then_some(Wanted::BootkubeDone);
    }
    if let Some(["rendered-assets", "openshift", "manifests", file]) = tail(4) {
        let os_image = file.ends_with(&format!("{OS_IMAGE_CONFIG_SUFFIX}.yaml"));
        let manifest = [".yaml", ".yml", ".json"].iter().any(|e| file.ends_with(e));
        return (manifest && !os_image).then_some(Wanted::AssetManifest);
    }
    match (tail(2), parts.last()) {
        (Some(["os-image", file]), _) => os_image_file(file),
        (Some(["openshift", file]), _)
            if file.ends_with(&format!("{OS_IMAGE_CONFIG_SUFFIX}.yaml")) =>
        {
            Some(Wanted::OsImageConfig)
        }
        (Some(["resources", "machineosconfigs.json"]), _) => Some(Wanted::MachineOsConfigs),
        (Some(["resources", "machineosbuilds.json"]), _) => Some(Wanted::MachineOsBuilds),
        (Some(["resources", "machineconfigs.json"]), _) => Some(Wanted::MachineConfigs),
        (Some(["resources", "machineconfigpools.json"]), _) => Some(Wanted::MachineConfigPools),
        (Some(["resources", name]), _) if RESOURCES.contains(name) => {
            Some(Wanted::Resource(name.to_string()))
        }
        (_, Some(&"failed-units.txt")) => Some(Wanted::FailedUnits),
        _ => None,
    }
}

/// Whether `parts` is the host's registries.conf (`REGISTRIES_CONF_DIR/registries.conf`) or
/// one of its drop-ins (`REGISTRIES_CONF_DIR/registries.conf.d/NAME.conf`).
fn registries_conf(parts: &[&str]) -> bool {
    let dir: Vec<&str> = contract::REGISTRIES_CONF_DIR.split('/').collect();
    let under = |n: usize| {
        parts.len() >= dir.len() + n && parts[parts.len() - dir.len() - n..][..dir.len()] == dir[..]
    };
    match parts {
        [.., "registries.conf"] => under(1),
        [.., "registries.conf.d", file] => file.ends_with(".conf") && under(2),
        _ => false,
    }
}

/// A file of `os-image/`: the served configs' images, a tool's status or its absence.
fn os_image_file(file: &str) -> Option<Wanted> {
    if file == "served-os-images.txt" {
        return Some(Wanted::ServedOsImages);
    }
    OsTool::ALL.into_iter().find_map(|tool| {
        let rest = file.strip_prefix(tool.name())?;
        match rest {
            "-status.json" => Some(Wanted::OsStatus(tool)),
            "-absent.txt" => Some(Wanted::OsToolAbsent(tool)),
            _ => None,
        }
    })
}

/// A container file is `<name>-<id>.inspect` or `.log`; lists (`crictl-ps.txt`) are not.
fn container_file(file: &str) -> Option<Wanted> {
    if file.ends_with(".inspect") {
        Some(Wanted::ContainerInspect)
    } else if file.ends_with(".log") {
        Some(Wanted::ContainerLog)
    } else {
        None
    }
}

/// The text kept of a file: the last lines of a container log, everything else whole; every
/// control character escaped ([`crate::shown`]), in a document as the document's own escape.
pub(crate) fn kept_text(kind: &Wanted, bytes: &[u8]) -> String {
    if is_document(kind) {
        return crate::shown::document_text(bytes);
    }
    let text = crate::shown::file_text(bytes);
    if *kind != Wanted::ContainerLog {
        return text;
    }
    let mut kept = last_lines(&text, LOG_LINES_KEPT).join("\n");
    kept.push('\n');
    kept
}

/// Whether a file of `kind` is a JSON or YAML document (else it is text read by lines).
fn is_document(kind: &Wanted) -> bool {
    match kind {
        Wanted::Resource(name) => name.ends_with(".json"),
        Wanted::ServiceRecord(_)
        | Wanted::MachineOsConfigs
        | Wanted::MachineOsBuilds
        | Wanted::MachineConfigs
        | Wanted::MachineConfigPools
        | Wanted::OsImageConfig
        | Wanted::OsStatus(_)
        | Wanted::ContainerInspect
        | Wanted::AssetManifest
        | Wanted::RegistriesConf => true,
        Wanted::FailedUnits
        | Wanted::Journal(_)
        | Wanted::ServedOsImages
        | Wanted::OsToolAbsent(_)
        | Wanted::EtcdMembers
        | Wanted::ContainerLog
        | Wanted::BootkubeDone
        | Wanted::PullSecretRegistries => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_paths_at_any_depth() {
        let record = |n: &str| Some(Wanted::ServiceRecord(n.to_string()));
        assert_eq!(
            classify("log-bundle-1/bootstrap/services/bootkube.json"),
            record("bootkube")
        );
        assert_eq!(
            classify("./log-bundle-1/log-bundle-bootstrap/bootstrap/services/release-image.json"),
            record("release-image")
        );
        assert_eq!(classify("bootstrap/services/x.json"), record("x"));
        assert_eq!(classify("bootstrap/services/.json"), None);
        assert_eq!(classify("log-bundle-1/bootstrap/services/x.txt"), None);
        assert_eq!(
            classify("log-bundle-1/control-plane/10.0.0.1/failed-units.txt"),
            Some(Wanted::FailedUnits)
        );
        assert_eq!(
            classify("b/bootstrap/journals/bootkube.log"),
            Some(Wanted::Journal("bootkube".into()))
        );
        assert_eq!(
            classify("b/bootstrap/journals/node-image-overlay.log"),
            Some(Wanted::Journal("node-image-overlay".into()))
        );
        assert_eq!(classify("b/bootstrap/journals/kubelet.log"), None);
        assert_eq!(
            classify("b/bootstrap/containers/etcd-0a1b.inspect"),
            Some(Wanted::ContainerInspect)
        );
        assert_eq!(
            classify("b/bootstrap/pods/etcd-render-0a1b.log"),
            Some(Wanted::ContainerLog)
        );
        assert_eq!(classify("b/bootstrap/pods/podman-ps.txt"), None);
        assert_eq!(
            classify("b/control-plane/10.0.0.5/containers/etcd-0a1b.log"),
            Some(Wanted::ContainerLog)
        );
        assert_eq!(
            classify("b/bootstrap/containers/bootstrap-control-plane/kube-apiserver.log"),
            None
        );
        assert_eq!(
            classify("b/bootstrap/etcd/member-list.txt"),
            Some(Wanted::EtcdMembers)
        );
        assert_eq!(
            classify("b/resources/api-unreachable.txt"),
            Some(Wanted::Resource("api-unreachable.txt".into()))
        );
        assert_eq!(classify("b/resources/pods.json"), None);
        assert_eq!(
            classify("b/resources/machineosbuilds.json"),
            Some(Wanted::MachineOsBuilds)
        );
        assert_eq!(
            classify("b/resources/machineconfigpools.json"),
            Some(Wanted::MachineConfigPools)
        );
        assert_eq!(
            classify("b/control-plane/10.0.0.5/os-image/rpm-ostree-status.json"),
            Some(Wanted::OsStatus(OsTool::RpmOstree))
        );
        assert_eq!(
            classify("b/bootstrap/os-image/bootc-absent.txt"),
            Some(Wanted::OsToolAbsent(OsTool::Bootc))
        );
        assert_eq!(
            classify("b/bootstrap/os-image/served-os-images.txt"),
            Some(Wanted::ServedOsImages)
        );
        assert_eq!(classify("b/bootstrap/os-image/bootc-status.txt"), None);
        let bootstrap_copy = "99_openshift-machineconfig_99-master-okd-install-os-image.yaml";
        assert_eq!(
            classify(&format!(
                "b/rendered-assets/openshift/openshift/{bootstrap_copy}"
            )),
            Some(Wanted::OsImageConfig)
        );
        // bootkube's copy in manifests/ is the same file: read once.
        assert_eq!(
            classify(&format!(
                "b/rendered-assets/openshift/manifests/{bootstrap_copy}"
            )),
            None
        );
    }

    #[test]
    fn container_logs_keep_their_last_lines() {
        let long: String = (0..LOG_LINES_KEPT + 50)
            .map(|i| format!("line {i}\n"))
            .collect();
        let kept = kept_text(&Wanted::ContainerLog, long.as_bytes());
        assert_eq!(kept.lines().count(), LOG_LINES_KEPT);
        assert_eq!(kept.lines().next(), Some("line 50"));
        assert_eq!(kept_text(&Wanted::FailedUnits, long.as_bytes()), long);
    }
}
