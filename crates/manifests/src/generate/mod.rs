//! Rendering of the generated `manifests/` and `openshift/` files.

mod baremetal;
mod config;
pub(crate) mod machineconfigs;
mod secrets;
mod vsphere;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::Error;
use crate::inputs::{ManifestInputs, Platform};
#[cfg(doc)]
use crate::user::holds_secret;
use crate::user::{UserFile, is_secret_object};
use crate::yaml::to_yaml;

pub use baremetal::{PROVISIONING_FILE, PROVISIONING_NAME};
pub use secrets::KUBEADMIN_SECRET_FILE;
pub use vsphere::{CREDS_FILE, CREDS_NAMESPACE, CREDS_SECRET, creds_keys};

pub use crate::dir::Dir;

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestFile {
    /// Target directory.
    pub dir: Dir,
    /// File name inside `dir`.
    pub name: String,
    /// File content.
    pub data: Vec<u8>,
    /// The object is a core Secret: the file is written 0600 ([`holds_secret`]'s rule).
    secret: bool,
}

impl ManifestFile {
    /// `<dir>/<name>`, the path relative to the install dir.
    pub fn rel_path(&self) -> String {
        self.dir.file(&self.name)
    }

    /// `obj` rendered as `data` into `<dir>/<name>`; whether it is secret is judged from `obj`
    /// by the rule loaded files get ([`holds_secret`]), so no file is parsed back for it.
    pub(crate) fn rendered<T: Serialize>(dir: Dir, name: String, obj: &T, data: Vec<u8>) -> Self {
        let value = serde_json::to_value(obj).unwrap_or_default();
        let text = |key: &str| value[key].as_str().unwrap_or_default().to_string();
        let secret = is_secret_object(&text("apiVersion"), &text("kind"));
        ManifestFile {
            dir,
            name,
            data,
            secret,
        }
    }

    /// Whether the file must be written 0600.
    pub fn is_secret(&self) -> bool {
        self.secret
    }
}

/// Result of [`generate`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Generated {
    /// Files sorted by relative path.
    pub files: Vec<ManifestFile>,
    /// Things the user should know (e.g. masters made schedulable).
    pub warnings: Vec<String>,
}

impl Generated {
    /// The file at `<dir>/<name>`, if generated.
    pub fn get(&self, dir: Dir, name: &str) -> Option<&ManifestFile> {
        self.files.iter().find(|f| f.dir == dir && f.name == name)
    }
}

/// Accumulates files while the generators run.
#[derive(Default)]
pub(crate) struct Out {
    files: Vec<ManifestFile>,
    warnings: Vec<String>,
}

impl Out {
    /// Render `obj` and add it as `<dir>/<name>`.
    pub(crate) fn push<T: Serialize>(
        &mut self,
        dir: Dir,
        name: &str,
        obj: &T,
    ) -> Result<(), Error> {
        let text = to_yaml(obj).map_err(|source| Error::Render {
            file: format!("{dir}/{name}"),
            source,
        })?;
        let file = ManifestFile::rendered(dir, name.to_string(), obj, text.into_bytes());
        self.files.push(file);
        Ok(())
    }

    pub(crate) fn warn(&mut self, message: String) {
        self.warnings.push(message);
    }
}

/// Render every manifest for `inputs`.
///
/// Pure and deterministic: the same inputs give byte-identical files, so a re-run can tell a
/// user's edit from our own output by comparing bytes (see [`classify`]).
pub fn generate(inputs: &ManifestInputs) -> Result<Generated, Error> {
    let mut out = Out::default();
    config::add(inputs, &mut out)?;
    secrets::add(inputs, &mut out)?;
    machineconfigs::add(inputs, &mut out)?;
    match &inputs.platform {
        Platform::BareMetal(bm) => baremetal::add(bm, &mut out)?,
        Platform::VSphere(vs) => {
            vsphere::add(vs, inputs.additional_trust_bundle.as_deref(), &mut out)?
        }
        Platform::None => {}
    }
    out.files.sort_by_key(ManifestFile::rel_path);
    Ok(Generated {
        files: out.files,
        warnings: out.warnings,
    })
}

/// How a file found on disk relates to what [`generate`] would write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Origin {
    /// Byte-identical to the generated file.
    Generated,
    /// Same path as a generated file, different content: the user edited it.
    Edited,
    /// No generated file has this path: the user added it.
    Added,
}

/// Result of [`classify`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Classification {
    /// Every on-disk file with its origin, in the order given.
    pub files: Vec<(String, Origin)>,
    /// Generated files the user removed (they will not reach the cluster).
    pub removed: Vec<String>,
}

/// Compare the files loaded from disk with freshly generated ones.
///
/// The caller uses this to log which manifests are user content, to warn about removed
/// generated files, and to decide whether a stale on-disk copy can be refreshed.
pub fn classify(generated: &Generated, on_disk: &[UserFile]) -> Classification {
    let by_path: BTreeMap<String, &ManifestFile> =
        generated.files.iter().map(|f| (f.rel_path(), f)).collect();
    let mut seen = Vec::new();
    let files = on_disk
        .iter()
        .map(|u| {
            let path = u.rel_path();
            let origin = match by_path.get(&path) {
                Some(g) if g.data == u.data => Origin::Generated,
                Some(_) => Origin::Edited,
                None => Origin::Added,
            };
            seen.push(path.clone());
            (path, origin)
        })
        .collect();
    let removed = by_path.into_keys().filter(|p| !seen.contains(p)).collect();
    Classification { files, removed }
}

/// Paths whose content is the user's (edited or added), for a one-line summary.
pub fn user_added_or_edited(generated: &Generated, on_disk: &[UserFile]) -> Vec<String> {
    classify(generated, on_disk)
        .files
        .into_iter()
        .filter(|(_, o)| *o != Origin::Generated)
        .map(|(p, _)| p)
        .collect()
}
