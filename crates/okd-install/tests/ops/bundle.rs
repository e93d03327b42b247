//! Log bundles shaped like the ones the bootstrap gather script writes: a gzip-compressed tar
//! with everything under `log-bundle-<id>/`, service records in `bootstrap/services/`.

use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::GzEncoder;
use serde_json::{Value, json};

/// One service-record entry; empty strings are left out, as the record library does.
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
        entry["errorLine"] = json!("17 main /usr/local/bin/release-image.sh");
    }
    entry
}

/// A service that started once and ended successfully.
pub fn succeeded() -> Vec<Value> {
    vec![
        record("service start", "", "", ""),
        record("service end", "", "success", ""),
    ]
}

/// Files of a bundle under construction.
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

    /// Adds a file at `path` below the top directory.
    pub fn file(mut self, path: &str, content: &str) -> Bundle {
        let full = format!("{}/{path}", self.top);
        self.files.push((full, content.as_bytes().to_vec()));
        self
    }

    /// Adds the service record file of `service`.
    pub fn service(self, service: &str, entries: Vec<Value>) -> Bundle {
        let text = serde_json::to_string(&entries).expect("records to JSON");
        self.file(&format!("bootstrap/services/{service}.json"), &text)
    }

    /// Writes the tar.gz to `dir/name`.
    pub fn write(&self, dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(name);
        let file = std::fs::File::create(&path).expect("create bundle file");
        let mut tar = tar::Builder::new(GzEncoder::new(file, Compression::fast()));
        for (name, data) in &self.files {
            let mut header = tar::Header::new_gnu();
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            tar.append_data(&mut header, name, data.as_slice())
                .expect("append to bundle");
        }
        tar.into_inner()
            .expect("finish tar")
            .finish()
            .expect("finish gzip");
        path
    }
}
