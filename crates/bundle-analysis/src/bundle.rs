//! Reading the few files the analysis needs out of a gzip-compressed tar bundle.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use flate2::read::GzDecoder;

use super::booted::OsTool;
use super::last_lines;
use crate::AnalysisError;
use contract::OS_IMAGE_CONFIG_SUFFIX;

/// How much of a bundle the analysis reads: a bundle comes from a host that may be broken
/// or hostile, and its size says nothing about what is in it (a gigabyte of zeros packs into
/// a megabyte). Memory stays near [`Budget::kept`] plus twice [`Budget::file`] whatever the
/// bundle holds, and reading ends after [`Budget::archive`] bytes of it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    /// Bytes of the unpacked archive read in all: headers and every entry, wanted or not.
    pub archive: u64,
    /// Bytes of the wanted files kept, all together.
    pub kept: u64,
    /// Bytes read of one file: a journal's last bytes, any other file whole or not at all.
    pub file: u64,
    /// Wanted files kept.
    pub files: usize,
}

/// The budget of every analysis: far above what a real bundle holds (its journals are some
/// MiB, its largest cluster dump some tens), far below what would hurt the machine reading it.
pub(crate) const BUDGET: Budget = Budget {
    archive: 4 << 30,
    kept: 48 << 20,
    file: 16 << 20,
    files: 20_000,
};

/// How many bytes of a container log are read: its last [`LOG_LINES_KEPT`] lines are kept.
const CONTAINER_LOG_BYTES: u64 = 1 << 20;

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
}

/// One interesting file, with its path inside the archive.
#[derive(Debug, Clone)]
pub(crate) struct BundleFile {
    pub path: String,
    pub kind: Wanted,
    pub text: String,
}

/// A wanted file the budget left out, and why.
#[derive(Debug, Clone)]
pub(crate) struct Skipped {
    pub path: String,
    pub kind: Wanted,
    pub reason: String,
}

/// All interesting files, plus a note when the archive could only be read in part.
#[derive(Debug, Default)]
pub(crate) struct BundleContents {
    pub files: Vec<BundleFile>,
    /// Bytes of text kept in [`BundleContents::files`].
    pub kept: u64,
    /// Wanted files not read, since they did not fit the budget.
    pub skipped: Vec<Skipped>,
    /// Why reading stopped before the end of the archive, when the budget ended it.
    pub stopped: Option<String>,
    pub damaged: Option<String>,
}

/// Classifies an archive path by its trailing components, so that any top directory
/// (`log-bundle-<ID>/`) and the nested single-node layout (`.../log-bundle-bootstrap/`) work.
pub(crate) fn classify(path: &str) -> Option<Wanted> {
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let tail = |n: usize| parts.len().checked_sub(n).map(|start| &parts[start..]);
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
fn kept_text(kind: &Wanted, bytes: &[u8]) -> String {
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
        | Wanted::AssetManifest => true,
        Wanted::FailedUnits
        | Wanted::Journal(_)
        | Wanted::ServedOsImages
        | Wanted::OsToolAbsent(_)
        | Wanted::EtcdMembers
        | Wanted::ContainerLog
        | Wanted::BootkubeDone => false,
    }
}

/// Reads the interesting regular files of the bundle at `path`, within [`BUDGET`].
pub(crate) fn read_bundle(path: &Path) -> Result<BundleContents, AnalysisError> {
    read_bundle_within(path, &BUDGET)
}

/// Reads the interesting regular files of the bundle at `path`, within `budget`: what does
/// not fit is listed in [`BundleContents::skipped`], never read.
pub(crate) fn read_bundle_within(
    path: &Path,
    budget: &Budget,
) -> Result<BundleContents, AnalysisError> {
    let bundle_err = |reason: String| AnalysisError::Bundle {
        path: path.to_path_buf(),
        reason: crate::shown::escape_line(&reason).into_owned(),
    };
    let file = File::open(path).map_err(|e| bundle_err(format!("cannot open it: {e}")))?;
    read_archive(BufReader::new(file), budget).map_err(bundle_err)
}

/// Reads the interesting files of a gzip-compressed tar archive (see [`read_bundle_within`]);
/// the error says why not even its first entry could be read.
pub(crate) fn read_archive(input: impl Read, budget: &Budget) -> Result<BundleContents, String> {
    let counted = Counted::new(GzDecoder::new(input), budget.archive);
    let read_so_far = counted.total.clone();
    let mut archive = tar::Archive::new(counted);
    let entries = archive
        .entries()
        .map_err(|e| format!("not a tar.gz archive: {e}"))?;
    let mut contents = BundleContents::default();
    let mut seen = 0usize;
    for entry in entries {
        let result = entry.and_then(|mut entry| {
            seen += 1;
            read_entry(&mut entry, budget, &mut contents)
        });
        match result {
            Ok(()) => {}
            Err(_) if read_so_far.get() > budget.archive => {
                contents.stopped = Some(format!(
                    "the analysis reads at most {} of an unpacked bundle; it stopped there, \
                     after {seen} entries, and did not analyse the rest",
                    in_units(budget.archive)
                ));
                break;
            }
            Err(e) if seen == 0 => return Err(format!("not a readable tar.gz archive: {e}")),
            Err(e) => {
                contents.damaged = Some(crate::shown::escape_line(&format!(
                    "the archive is damaged after {seen} entries ({e}); only that part was analysed"
                )).into_owned());
                break;
            }
        }
    }
    Ok(contents)
}

/// Keeps one entry when the analysis wants it and it fits the budget; lists it as skipped
/// when it does not fit.
fn read_entry(
    entry: &mut tar::Entry<impl Read>,
    budget: &Budget,
    contents: &mut BundleContents,
) -> std::io::Result<()> {
    if !entry.header().entry_type().is_file() {
        return Ok(());
    }
    let name = crate::shown::escape_line(&entry.path()?.to_string_lossy()).into_owned();
    let Some(kind) = classify(&name) else {
        return Ok(());
    };
    let size = entry.size();
    // A log is read for its end, the rest whole or not at all (half a JSON document is none).
    let tail = match kind {
        Wanted::ContainerLog => Some(budget.file.min(CONTAINER_LOG_BYTES)),
        Wanted::Journal(_) => Some(budget.file),
        _ => None,
    };
    let cost = tail.map_or(size, |t| size.min(t));
    let skip = if tail.is_none() && size > budget.file {
        Some(format!(
            "{}, more than the {} the analysis reads of one file",
            in_units(size),
            in_units(budget.file)
        ))
    } else if contents.files.len() >= budget.files {
        Some(format!(
            "the analysis reads at most {} files of a bundle",
            budget.files
        ))
    } else if contents.kept + cost > budget.kept {
        Some(over_total(in_units(cost), budget))
    } else {
        None
    };
    if let Some(reason) = skip {
        contents.skipped.push(Skipped {
            path: name,
            kind,
            reason,
        });
        return Ok(());
    }
    let bytes = match tail {
        Some(limit) => read_tail(entry, limit)?,
        None => {
            let mut bytes = Vec::new();
            entry.take(budget.file).read_to_end(&mut bytes)?;
            bytes
        }
    };
    let text = kept_text(&kind, &bytes);
    // Escaped control characters take more room than they did: charged as kept.
    let kept = text.len() as u64;
    if contents.kept + kept > budget.kept {
        let reason = over_total(
            format!("{} once its control characters are escaped", in_units(kept)),
            budget,
        );
        contents.skipped.push(Skipped {
            path: name,
            kind,
            reason,
        });
        return Ok(());
    }
    contents.kept += kept;
    contents.files.push(BundleFile {
        path: name,
        kind,
        text,
    });
    Ok(())
}

/// The last `limit` bytes of `input` (from the first line that starts in them), holding at
/// most twice that in memory.
fn read_tail(input: &mut impl Read, limit: u64) -> std::io::Result<Vec<u8>> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut kept: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut cut = false;
    loop {
        let n = input.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        kept.extend_from_slice(&chunk[..n]);
        if kept.len() > limit.saturating_mul(2) {
            kept.drain(..kept.len() - limit);
            cut = true;
        }
    }
    if kept.len() > limit {
        kept.drain(..kept.len() - limit);
        cut = true;
    }
    if cut && let Some(first_end) = kept.iter().position(|&b| b == b'\n') {
        kept.drain(..=first_end);
    }
    Ok(kept)
}

/// A reader that counts what passed through it and fails once `limit` is passed.
struct Counted<R> {
    inner: R,
    limit: u64,
    total: std::rc::Rc<std::cell::Cell<u64>>,
}

impl<R> Counted<R> {
    fn new(inner: R, limit: u64) -> Self {
        Counted {
            inner,
            limit,
            total: Default::default(),
        }
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.total.get() > self.limit {
            return Err(std::io::Error::other("over the bundle's size budget"));
        }
        let n = self.inner.read(buf)?;
        self.total.set(self.total.get() + n as u64);
        if self.total.get() > self.limit {
            return Err(std::io::Error::other("over the bundle's size budget"));
        }
        Ok(n)
    }
}

/// `bytes` in the largest unit that keeps it a whole number or one decimal: `64 MiB`.
fn in_units(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, scale) in UNITS {
        if bytes >= scale {
            let value = bytes as f64 / scale as f64;
            return if bytes.is_multiple_of(scale) {
                format!("{} {unit}", bytes / scale)
            } else {
                format!("{value:.1} {unit}")
            };
        }
    }
    format!("{bytes} bytes")
}

/// Why a file of `size` (in words) was left out when the bundle's total is reached.
fn over_total(size: String, budget: &Budget) -> String {
    format!(
        "{size}, more than is left of the {} the analysis reads of a bundle's files",
        in_units(budget.kept)
    )
}

impl BundleContents {
    /// The one line that says what the budget left out, when it left something out.
    pub(crate) fn skipped_note(&self) -> Option<String> {
        const NAMED: usize = 10;
        if self.skipped.is_empty() {
            return None;
        }
        let named: Vec<String> = self
            .skipped
            .iter()
            .take(NAMED)
            .map(|s| format!("{} ({})", s.path, s.reason))
            .collect();
        let more = match self.skipped.len().saturating_sub(NAMED) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        Some(format!(
            "the bundle holds more than the analysis reads, so it skipped {} file(s) and \
             nothing they show is in this analysis: {}{more}",
            self.skipped.len(),
            named.join(", ")
        ))
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

    const SMALL: Budget = Budget {
        archive: 1 << 20,
        kept: 3000,
        file: 1000,
        files: 4,
    };

    fn read_small(bundle: testkit::gather::bundle::Bundle, budget: &Budget) -> BundleContents {
        let dir = tempfile::tempdir().unwrap();
        let path = bundle.write(dir.path(), "b.tar.gz");
        read_bundle_within(&path, budget).unwrap()
    }

    #[test]
    fn a_bundle_is_read_within_its_budget_and_says_what_it_left_out() {
        use testkit::gather::bundle::Bundle;
        let journal: String = (0..100).map(|i| format!("journal line {i:04}\n")).collect();
        let contents = read_small(
            Bundle::new("1")
                .file("bootstrap/services/bootkube.json", "[]")
                .file("bootstrap/services/huge.json", vec![b' '; 1001])
                .file("bootstrap/journals/bootkube.log", &journal)
                .file("bootstrap/journals/release-image.log", &journal)
                .file("bootstrap/journals/node-image-pull.log", &journal)
                .file("resources/nodes.json", "{}"),
            &SMALL,
        );
        assert!(contents.kept <= SMALL.kept, "{} kept", contents.kept);
        let kept: Vec<&str> = contents.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            kept,
            [
                "log-bundle-1/bootstrap/services/bootkube.json",
                "log-bundle-1/bootstrap/journals/bootkube.log",
                "log-bundle-1/bootstrap/journals/release-image.log",
                "log-bundle-1/bootstrap/journals/node-image-pull.log",
            ]
        );
        let journal = &contents.files[1].text;
        assert!(journal.len() <= 1000);
        assert!(
            journal.ends_with("journal line 0099\n"),
            "a journal's end is kept"
        );
        assert!(
            journal.starts_with("journal line "),
            "from a whole line: {journal}"
        );
        let skipped: Vec<(&str, &str)> = contents
            .skipped
            .iter()
            .map(|s| (s.path.as_str(), s.reason.as_str()))
            .collect();
        assert_eq!(
            skipped,
            [
                (
                    "log-bundle-1/bootstrap/services/huge.json",
                    "1001 bytes, more than the 1000 bytes the analysis reads of one file"
                ),
                (
                    "log-bundle-1/resources/nodes.json",
                    "the analysis reads at most 4 files of a bundle"
                ),
            ]
        );
        let note = contents.skipped_note().unwrap();
        assert!(note.contains("skipped 2 file(s)"), "{note}");
    }

    #[test]
    fn files_over_the_bundles_total_are_skipped_even_after_escaping() {
        use testkit::gather::bundle::Bundle;
        // 800 escape characters take 3200 bytes once shown as `\x1b`.
        let hostile = vec![0x1bu8; 800];
        let contents = read_small(
            Bundle::new("1")
                .file("bootstrap/journals/bootkube.log", &hostile)
                .file("bootstrap/journals/release-image.log", "fits\n"),
            &SMALL,
        );
        assert!(contents.kept <= SMALL.kept);
        assert_eq!(contents.files.len(), 1);
        assert!(
            contents.skipped[0]
                .reason
                .contains("once its control characters are escaped"),
            "{:?}",
            contents.skipped
        );
    }

    #[test]
    fn reading_stops_at_the_archives_budget() {
        use testkit::gather::bundle::Bundle;
        let budget = Budget {
            archive: 64 * 1024,
            ..SMALL
        };
        let contents = read_small(
            Bundle::new("1")
                .file("bootstrap/services/bootkube.json", "[]")
                .file("padding.bin", vec![0u8; 128 * 1024])
                .file("bootstrap/services/release-image.json", "[]"),
            &budget,
        );
        assert_eq!(contents.files.len(), 1);
        let stopped = contents.stopped.unwrap();
        assert!(stopped.contains("at most 64 KiB"), "{stopped}");
        assert!(contents.damaged.is_none());
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
