//! Builds log bundles with the layout the bootstrap gather script produces.

use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::GzEncoder;
use serde_json::{Value, json};

/// A bundle under construction: (path inside the archive, content).
#[derive(Default)]
pub struct Bundle {
    files: Vec<(String, Vec<u8>)>,
    prefix: String,
}

/// One service record entry.
pub fn entry(phase: &str, stage: &str, result: &str, message: &str) -> Value {
    let mut e = json!({"timestamp": "2026-11-21T10:00:00Z", "phase": phase});
    let map = e.as_object_mut().unwrap();
    for (key, value) in [
        ("stage", stage),
        ("result", result),
        ("errorMessage", message),
    ] {
        if !value.is_empty() {
            map.insert(key.into(), json!(value));
        }
    }
    if result == "failure" {
        map.insert(
            "errorLine".into(),
            json!("42 main /usr/local/bin/script.sh"),
        );
    }
    e
}

/// Entries of a service that ran once and succeeded.
pub fn healthy() -> Vec<Value> {
    vec![
        entry("service start", "", "", ""),
        entry("service end", "", "success", ""),
    ]
}

impl Bundle {
    /// A bundle whose files live under `log-bundle-<id>/`.
    pub fn new(id: &str) -> Self {
        Bundle {
            files: Vec::new(),
            prefix: format!("log-bundle-{id}/"),
        }
    }

    /// Adds a file below the bundle's top directory.
    pub fn file(mut self, path: &str, content: impl Into<Vec<u8>>) -> Self {
        self.files
            .push((format!("{}{path}", self.prefix), content.into()));
        self
    }

    /// Adds `bootstrap/services/<name>.json` with the given entries.
    pub fn service(self, name: &str, entries: Vec<Value>) -> Self {
        let text = serde_json::to_string_pretty(&entries).unwrap();
        self.file(&format!("bootstrap/services/{name}.json"), text)
    }

    /// Writes the bundle as a tar.gz into `dir` and returns its path.
    pub fn write(&self, dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(name);
        let file = std::fs::File::create(&path).unwrap();
        let mut tar = tar::Builder::new(GzEncoder::new(file, Compression::fast()));
        for (name, content) in &self.files {
            let mut header = tar::Header::new_gnu();
            header.set_size(content.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            tar.append_data(&mut header, name, content.as_slice())
                .unwrap();
        }
        tar.into_inner().unwrap().finish().unwrap();
        path
    }
}
