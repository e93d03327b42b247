//! Reading the few files the analysis needs out of a gzip-compressed tar bundle.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use flate2::read::GzDecoder;

use crate::AnalysisError;

/// Files larger than this are read only up to the limit: a journal can be huge, and we only
/// ever need its tail or a JSON document far smaller than this.
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// What kind of file the analysis is interested in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Wanted {
    /// `.../bootstrap/services/<name>.json`
    ServiceRecord(String),
    /// `.../failed-units.txt`
    FailedUnits,
    /// `.../bootstrap/journals/bootkube.log`
    BootkubeJournal,
    /// `.../bootstrap/journals/release-image-pivot.log` (the OS pivot's journal, every boot)
    OsPivotJournal,
    /// `.../resources/machineosconfigs.json`
    MachineOsConfigs,
    /// `.../resources/machineosbuilds.json`
    MachineOsBuilds,
}

/// One interesting file, with its path inside the archive.
#[derive(Debug, Clone)]
pub(crate) struct BundleFile {
    pub path: String,
    pub kind: Wanted,
    pub text: String,
}

/// All interesting files, plus a note when the archive could only be read in part.
#[derive(Debug, Default)]
pub(crate) struct BundleContents {
    pub files: Vec<BundleFile>,
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
    if let Some([b, s, file]) = tail(3)
        && *b == "bootstrap"
        && *s == "services"
    {
        let name = file.strip_suffix(".json").filter(|n| !n.is_empty())?;
        return Some(Wanted::ServiceRecord(name.to_string()));
    }
    match (tail(3), tail(2), parts.last()) {
        (Some(["bootstrap", "journals", "bootkube.log"]), _, _) => Some(Wanted::BootkubeJournal),
        (Some(["bootstrap", "journals", "release-image-pivot.log"]), _, _) => {
            Some(Wanted::OsPivotJournal)
        }
        (_, Some(["resources", "machineosconfigs.json"]), _) => Some(Wanted::MachineOsConfigs),
        (_, Some(["resources", "machineosbuilds.json"]), _) => Some(Wanted::MachineOsBuilds),
        (_, _, Some(&"failed-units.txt")) => Some(Wanted::FailedUnits),
        _ => None,
    }
}

/// Reads the interesting regular files of the bundle at `path`.
pub(crate) fn read_bundle(path: &Path) -> Result<BundleContents, AnalysisError> {
    let bundle_err = |reason: String| AnalysisError::Bundle {
        path: path.to_path_buf(),
        reason,
    };
    let file = File::open(path).map_err(|e| bundle_err(format!("cannot open it: {e}")))?;
    let mut archive = tar::Archive::new(GzDecoder::new(BufReader::new(file)));
    let entries = archive
        .entries()
        .map_err(|e| bundle_err(format!("not a tar.gz archive: {e}")))?;
    let mut contents = BundleContents::default();
    let mut seen = 0usize;
    for entry in entries {
        let result = entry.and_then(|mut entry| {
            seen += 1;
            if !entry.header().entry_type().is_file() {
                return Ok(None);
            }
            let name = entry.path()?.to_string_lossy().into_owned();
            let Some(kind) = classify(&name) else {
                return Ok(None);
            };
            let mut bytes = Vec::new();
            (&mut entry).take(MAX_FILE_BYTES).read_to_end(&mut bytes)?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            Ok(Some(BundleFile {
                path: name,
                kind,
                text,
            }))
        });
        match result {
            Ok(Some(file)) => contents.files.push(file),
            Ok(None) => {}
            Err(e) if seen == 0 => {
                return Err(bundle_err(format!("not a readable tar.gz archive: {e}")));
            }
            Err(e) => {
                contents.damaged = Some(format!(
                    "the archive is damaged after {seen} entries ({e}); only that part was analysed"
                ));
                break;
            }
        }
    }
    Ok(contents)
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
            Some(Wanted::BootkubeJournal)
        );
        assert_eq!(
            classify("b/bootstrap/journals/release-image-pivot.log"),
            Some(Wanted::OsPivotJournal)
        );
        assert_eq!(
            classify("b/resources/machineosbuilds.json"),
            Some(Wanted::MachineOsBuilds)
        );
    }
}
