//! Loading `manifests/` and `openshift/` from an install directory.
//!
//! Whatever is there — our generated files, the user's edits of them, files the user added —
//! is delivered to the cluster unchanged. Loading only checks that every file is made of
//! Kubernetes objects, reports every broken file at once with its position, and never
//! deletes anything.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use serde_saphyr::Spanned;

use crate::dir::Dir;
use crate::error::ManifestError;

/// The file whose presence makes `manifests/` count as an existing, user-owned directory.
pub const MANIFESTS_MARKER: &str = "cluster-config.yaml";

/// One file read from disk.
#[derive(Debug, Clone, PartialEq)]
pub struct UserFile {
    /// Which directory it came from.
    pub dir: Dir,
    /// File name.
    pub name: String,
    /// Raw content, delivered unchanged.
    pub data: Vec<u8>,
    /// The objects it holds, in document order.
    pub objects: Vec<ObjectRef>,
}

impl UserFile {
    /// `<dir>/<name>`.
    pub fn rel_path(&self) -> String {
        self.dir.file(&self.name)
    }

    /// Whether the file must be written 0600 (see [`holds_secret`]).
    pub fn is_secret(&self) -> bool {
        holds_secret(&self.objects)
    }
}

/// Makes the user's file `file` of `dir` (the asset directory) 0600 when it holds a Secret
/// and others may read it, as [`holds_secret`] wants for every manifest; returns the line
/// that tells the user. `create` calls this; `verify` only reads.
pub fn make_private(dir: &Path, file: &UserFile) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    if !file.is_secret() {
        return None;
    }
    let path = dir.join(file.rel_path());
    let meta = fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.permissions().mode() & 0o077 == 0 {
        return None;
    }
    match fs::set_permissions(&path, fs::Permissions::from_mode(0o600)) {
        Ok(()) => Some(format!(
            "{} holds a Secret and was readable by others; it is now 0600 like every \
             manifest with a Secret",
            file.rel_path()
        )),
        Err(e) => Some(format!(
            "{} holds a Secret and is readable by others, and its mode could not be changed \
             ({e}); run `chmod 600 {}`",
            file.rel_path(),
            path.display()
        )),
    }
}

/// The one rule for a manifest file's mode: a file that holds a core `v1` Secret is written
/// 0600, any other file 0644.
///
/// It looks at what the file is, not at its name, so a generated file keeps its mode when it
/// is loaded back, a user's own Secret is protected whatever it is called, and a Role whose
/// name mentions "secret" is not.
pub fn holds_secret(objects: &[ObjectRef]) -> bool {
    objects.iter().any(ObjectRef::is_secret)
}

/// An object of this `apiVersion` and `kind` is a core Secret.
pub(crate) fn is_secret_object(api_version: &str, kind: &str) -> bool {
    kind == "Secret" && api_version == "v1"
}

/// Identity of one Kubernetes object plus its full content.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectRef {
    /// `group/version` or `version`.
    pub api_version: String,
    /// Kind.
    pub kind: String,
    /// Namespace, if set.
    pub namespace: Option<String>,
    /// Name.
    pub name: String,
    /// The whole object.
    pub value: Value,
    /// Line and column where the object's document starts.
    pub position: Option<(u64, u64)>,
}

impl ObjectRef {
    /// A core `v1` Secret.
    pub fn is_secret(&self) -> bool {
        is_secret_object(&self.api_version, &self.kind)
    }

    /// API group (empty for the core group).
    pub fn group(&self) -> &str {
        self.api_version
            .rsplit_once('/')
            .map_or("", |(group, _)| group)
    }
}

/// What [`load_dir`] found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LoadOutcome {
    /// `manifests/` files, or `None` when `manifests/cluster-config.yaml` is absent: the
    /// caller then regenerates the directory and tells the user why.
    pub manifests: Option<Vec<UserFile>>,
    /// `openshift/` files (`*.yaml`, `*.yml`, `*.json`), or `None` when there are none.
    pub openshift: Option<Vec<UserFile>>,
    /// Things skipped on purpose (subdirectories, other extensions in `openshift/`).
    pub warnings: Vec<String>,
}

/// Read `manifests/` and `openshift/` under `install_dir`.
///
/// Every file directly in `manifests/` is read (any extension); in `openshift/` only YAML and
/// JSON files. Files are sorted by name. All broken files are reported together.
pub fn load_dir(install_dir: &Path) -> Result<LoadOutcome, Vec<ManifestError>> {
    let mut outcome = LoadOutcome::default();
    let mut errors = Vec::new();
    let manifests = install_dir.join(Dir::Manifests.as_str());
    if manifests.join(MANIFESTS_MARKER).is_file() {
        let files = read_dir(
            &manifests,
            Dir::Manifests,
            &mut outcome.warnings,
            &mut errors,
        );
        outcome.manifests = Some(files);
    } else if fs::read_dir(&manifests).is_ok_and(|mut d| d.next().is_some()) {
        outcome.warnings.push(format!(
            "manifests/{MANIFESTS_MARKER} is missing, so the files in manifests/ are not used \
             and the manifests are generated again; restore it to keep your edits"
        ));
    }
    let openshift = install_dir.join(Dir::Openshift.as_str());
    if openshift.is_dir() {
        let files = read_dir(
            &openshift,
            Dir::Openshift,
            &mut outcome.warnings,
            &mut errors,
        );
        outcome.openshift = Some(files).filter(|f| !f.is_empty());
    }
    if errors.is_empty() {
        Ok(outcome)
    } else {
        Err(errors)
    }
}

fn wanted(dir: Dir, name: &str) -> bool {
    dir == Dir::Manifests || [".yaml", ".yml", ".json"].iter().any(|e| name.ends_with(e))
}

fn read_dir(
    path: &Path,
    dir: Dir,
    warnings: &mut Vec<String>,
    errors: &mut Vec<ManifestError>,
) -> Vec<UserFile> {
    let rel = |name: &str| PathBuf::from(dir.as_str()).join(name);
    let entries = match fs::read_dir(path) {
        Ok(e) => e,
        Err(e) => {
            errors.push(io_error(PathBuf::from(dir.as_str()), &e));
            return Vec::new();
        }
    };
    let mut names: Vec<(String, bool)> = entries
        .filter_map(Result::ok)
        .map(|e| {
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            (e.file_name().to_string_lossy().into_owned(), is_dir)
        })
        .collect();
    names.sort();
    let mut files = Vec::new();
    for (name, is_dir) in names {
        if is_dir {
            warnings.push(format!(
                "{}: subdirectories are not read; move the files up",
                rel(&name).display()
            ));
            continue;
        }
        if !wanted(dir, &name) {
            warnings.push(format!(
                "{}: ignored (only .yaml, .yml and .json are read here)",
                rel(&name).display()
            ));
            continue;
        }
        // Read as data of the asset directory: no link out of it, no FIFO, a size cap.
        let root = path.parent().unwrap_or(path);
        match atomic_file::input::read_in_dir(root, &rel(&name), MAX_MANIFEST) {
            Ok(data) => match parse_objects(&rel(&name), &data) {
                Ok(objects) => files.push(UserFile {
                    dir,
                    name,
                    data,
                    objects,
                }),
                Err(e) => errors.push(e),
            },
            Err(e) => errors.push(ManifestError {
                path: rel(&name),
                position: None,
                message: match e {
                    atomic_file::input::InputError::Io { source, .. } => {
                        format!("cannot read: {source}")
                    }
                    other => other.to_string(),
                },
            }),
        }
    }
    files
}

/// Larger than any manifest (the largest generated ones are a few hundred KiB).
const MAX_MANIFEST: u64 = 64 << 20;

fn io_error(path: PathBuf, e: &std::io::Error) -> ManifestError {
    ManifestError {
        path,
        position: None,
        message: format!("cannot read: {e}"),
    }
}

/// Parse a manifest file (YAML, possibly multi-document, or JSON) into objects.
///
/// `path` is only used in errors.
pub fn parse_objects(path: &Path, data: &[u8]) -> Result<Vec<ObjectRef>, ManifestError> {
    let err = |position, message: String| ManifestError {
        path: path.to_path_buf(),
        position,
        message,
    };
    let text = std::str::from_utf8(data).map_err(|e| err(None, format!("not UTF-8 text: {e}")))?;
    let docs: Vec<Spanned<Value>> = serde_saphyr::from_multiple(text).map_err(|e| {
        let pos = e.location().map(|l| (l.line(), l.column()));
        err(pos, format!("not valid YAML/JSON: {}", plain_message(&e)))
    })?;
    if docs.is_empty() {
        return Err(err(
            None,
            "contains no Kubernetes object; delete the file or add one".into(),
        ));
    }
    docs.into_iter()
        .map(|doc| {
            let pos = Some((doc.referenced.line(), doc.referenced.column()));
            object_ref(doc.value, pos).map_err(|m| err(pos, m))
        })
        .collect()
}

/// The parser's message without the location and source snippet (we print our own).
fn plain_message(e: &serde_saphyr::Error) -> String {
    let text = e.without_snippet().to_string();
    let first = text.lines().next().unwrap_or_default().trim();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let first = match first.split_once(": ") {
        Some((loc, rest)) if loc.starts_with("line ") => rest,
        _ => first,
    };
    match first.rfind(" at line ") {
        Some(i) => first[..i].to_string(),
        None => first.to_string(),
    }
}

const OBJECT_SHAPE: &str =
    "each document must be one Kubernetes object with apiVersion, kind and metadata.name";

fn object_ref(value: Value, position: Option<(u64, u64)>) -> Result<ObjectRef, String> {
    let Value::Object(map) = &value else {
        return Err(format!("document is not a mapping; {OBJECT_SHAPE}"));
    };
    let text = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(String::from)
    };
    let missing = |what: &str| format!("object has no {what}; {OBJECT_SHAPE}");
    let api_version = text(map.get("apiVersion")).ok_or_else(|| missing("apiVersion"))?;
    let kind = text(map.get("kind")).ok_or_else(|| missing("kind"))?;
    if kind.ends_with("List") && map.get("items").is_some_and(Value::is_array) {
        return Err(format!(
            "a {kind} is not applied as one object; write each of its items as a document of \
             its own (separated by `---`) or as a file of its own"
        ));
    }
    let metadata = map.get("metadata");
    let name = text(metadata.and_then(|m| m.get("name")))
        .ok_or_else(|| format!("{kind} has no metadata.name; add one"))?;
    Ok(ObjectRef {
        api_version,
        kind,
        namespace: text(metadata.and_then(|m| m.get("namespace"))),
        name,
        value,
        position,
    })
}

/// Whether an `openshift/` file name belongs to the installer's machine assets (user-data
/// secrets, MachineConfigs, Machines, MachineSets, the control-plane machine set, bare-metal
/// hosts and their secrets, vSphere IP claims and addresses, fencing credentials).
///
/// Upstream loads these through the machine assets rather than the Openshift asset, so they
/// are neither part of that asset's files nor of the bootstrap CVO overrides; a caller that
/// wants the same split filters with this.
pub fn owned_by_machine_assets(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "99_openshift-cluster-api_master-user-data-secret.yaml",
        "99_openshift-cluster-api_worker-user-data-secret.yaml",
        "99_openshift-machine-api_master-control-plane-machine-set.yaml",
    ];
    const PREFIXES: &[&str] = &[
        "99_openshift-machineconfig_",
        "99_openshift-cluster-api_master-machines-",
        "99_openshift-cluster-api_worker-machineset-",
        "99_openshift-cluster-api_hosts-",
        "99_openshift-cluster-api_host-bmc-secrets-",
        "99_openshift-cluster-api_host-network-config-secrets-",
        "99_openshift-machine-api_claim-",
        "99_openshift-machine-api_address-",
        "99_openshift-etcd_fencing-credentials-secrets-",
    ];
    EXACT.contains(&name)
        || (name.ends_with(".yaml") && PREFIXES.iter().any(|p| name.starts_with(p)))
}
