//! Log bundles shaped like the ones the bootstrap gather script writes: a gzip-compressed tar
//! with everything under `log-bundle-<id>/` and the service records in `bootstrap/services/`.
//!
//! Tests build exactly the evidence a case needs instead of shipping binary fixtures, so the
//! input of every analysis test can be read next to its assertions. Containers are written
//! with the shapes of `evidence`, the same the fake host's stand-in runtimes print.

use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::GzEncoder;
use serde_json::{Value, json};

use super::evidence::Container;

/// One service-record entry; empty strings are left out, as the record library does. A
/// failure also gets an `errorLine`, which every failure entry of the library carries.
pub fn record(phase: &str, stage: &str, result: &str, error: &str) -> Value {
    let mut entry = json!({"timestamp": "2026-11-20T08:00:00Z", "phase": phase});
    for (key, value) in [
        ("stage", stage),
        ("result", result),
        ("errorMessage", error),
    ] {
        if !value.is_empty() {
            entry[key] = json!(value);
        }
    }
    if result == "failure" {
        entry["errorLine"] = json!("42 main /usr/local/bin/bootstrap-script.sh");
    }
    entry
}

/// The records of a service that started once and ended successfully.
pub fn succeeded() -> Vec<Value> {
    vec![
        record("service start", "", "", ""),
        record("service end", "", "success", ""),
    ]
}

/// The records of a service whose one stage `stage` failed with `message`, which ended the
/// service as a failure too.
pub fn failed_in(stage: &str, message: &str) -> Vec<Value> {
    vec![
        record("service start", "", "", ""),
        record("stage start", stage, "", ""),
        record("stage end", stage, "failure", message),
        record("service end", "", "failure", ""),
    ]
}

/// The files of a bundle under construction.
pub struct Bundle {
    top: String,
    files: Vec<(String, Vec<u8>)>,
}

impl Bundle {
    /// An empty bundle whose top directory is `log-bundle-<id>`.
    pub fn new(id: &str) -> Bundle {
        Bundle {
            top: format!("log-bundle-{id}"),
            files: Vec::new(),
        }
    }

    /// Adds a file at `path` below the top directory, replacing one added before.
    pub fn file(mut self, path: &str, content: impl AsRef<[u8]>) -> Bundle {
        let full = format!("{}/{path}", self.top);
        self.files.retain(|(name, _)| *name != full);
        self.files.push((full, content.as_ref().to_vec()));
        self
    }

    /// Adds `bootstrap/services/<service>.json` holding `entries`, one entry per line like
    /// the record library writes them.
    pub fn service(self, service: &str, entries: Vec<Value>) -> Bundle {
        let text = serde_json::to_string_pretty(&entries).expect("records to JSON");
        self.file(&format!("bootstrap/services/{service}.json"), text)
    }

    /// Adds `rendered-assets/openshift/manifests/<name>`: a manifest of the asset tree the
    /// gather script copies from `/opt/openshift` (where bootkube.sh put `openshift/` too).
    pub fn asset_manifest(self, name: &str, yaml: &str) -> Bundle {
        self.file(&format!("rendered-assets/openshift/manifests/{name}"), yaml)
    }

    /// Adds `rendered-assets/openshift/.bootkube.done`, which bootkube.sh writes last.
    pub fn bootkube_done(self) -> Bundle {
        self.file("rendered-assets/openshift/.bootkube.done", "")
    }

    /// Adds a container's `<name>-<id>.inspect` and `.log` below `dir` (`bootstrap/containers`,
    /// `bootstrap/pods`, `control-plane/<host>/containers`), as the gather script writes them.
    pub fn container(self, dir: &str, c: &Container) -> Bundle {
        let stem = c.file_stem();
        self.file(&format!("{dir}/{stem}.inspect"), c.inspect())
            .file(&format!("{dir}/{stem}.log"), &c.log)
    }

    /// Writes the bundle as a tar.gz to `dir/name` and returns that path.
    pub fn write(&self, dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(name);
        let file = std::fs::File::create(&path).expect("create the bundle file");
        let mut tar = tar::Builder::new(GzEncoder::new(file, Compression::fast()));
        for (name, data) in &self.files {
            let mut header = tar::Header::new_gnu();
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            tar.append_data(&mut header, name, data.as_slice())
                .expect("append to the bundle");
        }
        tar.into_inner()
            .expect("finish the tar stream")
            .finish()
            .expect("finish the gzip stream");
        path
    }
}
