//! Reading an asset directory: install-config, the state file (through [`AssetDir`], the view
//! of DIR every command after `create` reads), the bootstrap config's embedded files and the
//! certificate set the other checks work on.
//!
//! Problems found while reading are checks too (a missing or unreadable input is a finding,
//! not a reason to stop): every loader takes the report and records what it could not read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use asset_graph::{GraphError, State};
use assets::AssetDir;
use assets::config::{ClusterIdAsset, InstallConfigAsset};
use assets::layout;
use installconfig::InstallConfig;
use pki::{BundleId, CertId, ClusterParams, TLS_DIR};
use serde_json::Value;

use crate::report::Report;

/// Bootstrap variants, in the order they are looked for; the first present one is used.
pub(crate) const BOOTSTRAP_FILES: [&str; 3] = layout::BOOTSTRAP_CONFIGS;

/// Larger than any file of an asset directory `verify` reads as text.
const MAX_TEXT: u64 = 64 << 20;

/// Reads `rel` of the asset directory as text, as data of the directory: never through a
/// link out of it, never a FIFO or device (they would block), at most 64 MiB. The error
/// says why in words.
pub(crate) fn read_text(dir: &Path, rel: impl AsRef<Path>) -> Result<String, String> {
    let bytes =
        atomic_file::input::read_in_dir(dir, rel.as_ref(), MAX_TEXT).map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|_| "is not UTF-8 text".to_string())
}

/// Where the bootstrap node gets a file of the asset directory: under `/opt/openshift/`, at
/// the path pki's table gives it there (`tls/root-ca.crt` for [`pki::TlsFile`]'s root CA
/// certificate, for example), as the bootstrap config is assembled.
pub(crate) fn node_path(rel: &str) -> String {
    format!("{EMBEDDED_ROOT}{rel}")
}

/// The state file name in the asset directory.
pub(crate) use assets::layout::STATE_FILE;

/// A certificate file and its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pair {
    /// The `.crt` text (leaf, possibly followed by its issuer).
    pub cert_pem: String,
    /// The `.key` text, when present.
    pub key_pem: Option<String>,
    /// Supplied by the user rather than generated.
    pub user_supplied: bool,
}

/// Which copy of the TLS material a [`CertSet`] was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    /// `tls/` in the asset directory.
    TlsDir,
    /// The state file.
    State,
    /// Files embedded in a bootstrap config (its file name).
    Bootstrap(String),
}

/// Every certificate, key and bundle of one origin.
#[derive(Debug, Clone)]
pub(crate) struct CertSet {
    pub origin: Origin,
    pub certs: BTreeMap<CertId, Pair>,
    pub bundles: BTreeMap<BundleId, String>,
}

impl CertSet {
    /// How a file of this set (`tls/<name>.crt`) is named in messages.
    pub(crate) fn name(&self, rel: &str) -> String {
        match &self.origin {
            Origin::TlsDir => rel.to_string(),
            Origin::State => format!("{STATE_FILE}:{rel}"),
            Origin::Bootstrap(ign) => {
                format!("{ign}:{}", node_path(rel))
            }
        }
    }

    /// The origin in words.
    pub(crate) fn origin_text(&self) -> String {
        match &self.origin {
            Origin::TlsDir => format!("{TLS_DIR}/"),
            Origin::State => STATE_FILE.into(),
            Origin::Bootstrap(ign) => ign.clone(),
        }
    }

    /// Every certificate (DER) of a certificate file, or `None` when absent or unreadable.
    pub(crate) fn ders(&self, id: CertId) -> Option<Vec<Vec<u8>>> {
        let pair = self.certs.get(&id)?;
        crate::x509::ders(&pair.cert_pem, &self.name(id.cert_path())).ok()
    }

    /// DER of the first certificate of a certificate file.
    pub(crate) fn leaf(&self, id: CertId) -> Option<Vec<u8>> {
        self.ders(id)?.into_iter().next()
    }

    /// Every certificate (DER) of a bundle.
    pub(crate) fn bundle_ders(&self, id: BundleId) -> Option<Vec<Vec<u8>>> {
        let pem = self.bundles.get(&id)?;
        crate::x509::ders(pem, &self.name(id.path())).ok()
    }
}

/// A bootstrap config with its files decoded.
#[derive(Debug, Clone)]
pub(crate) struct Bootstrap {
    /// File name, e.g. `bootstrap.ign`.
    pub name: String,
    /// The parsed JSON.
    pub json: Value,
    /// Node path → decoded (and decompressed) contents.
    pub files: BTreeMap<String, Vec<u8>>,
    /// The manifests the node applies (see [`embedded_manifests`]), parsed once for every
    /// check that looks at them.
    pub manifests: Vec<manifests::UserFile>,
}

impl Bootstrap {
    /// A file's text, if embedded and UTF-8.
    pub(crate) fn text(&self, path: &str) -> Option<String> {
        String::from_utf8(self.files.get(path)?.clone()).ok()
    }
}

/// What the checks use from the state file, each value read through the asset type that
/// stored it (so a renamed field cannot go unnoticed).
#[derive(Debug, Clone, Default)]
pub(crate) struct Stored {
    /// The install-config copy and the text it was parsed from.
    pub install_config: Option<InstallConfigAsset>,
    /// The cluster's UUID and infrastructure name.
    pub cluster_id: Option<ClusterIdAsset>,
    /// Every stored certificate and bundle, when the root CA is among them.
    pub certs: Option<CertSet>,
    /// The release options of the last run (which OKD release it generated for).
    pub release: Option<assets::ReleaseOptions>,
}

impl Stored {
    /// The stored root CA certificate file.
    pub(crate) fn root_ca_pem(&self) -> Option<&str> {
        let pair = self.certs.as_ref()?.certs.get(&CertId::RootCa)?;
        Some(&pair.cert_pem)
    }
}

/// Everything read from the directory.
#[derive(Debug, Clone)]
pub(crate) struct Material {
    pub dir: PathBuf,
    pub install_config: Option<InstallConfig>,
    pub params: Option<ClusterParams>,
    /// The values read from the state file (all empty without one).
    pub stored: Stored,
    pub bootstrap: Option<Bootstrap>,
    pub certs: Option<CertSet>,
    /// `manifests/` and `openshift/` on disk, parsed once; `None` when neither exists.
    pub disk_manifests: Option<Result<DiskManifests, Vec<manifests::ManifestError>>>,
}

/// The files of `manifests/` and `openshift/`, in that order, and what loading skipped.
#[derive(Debug, Clone)]
pub(crate) struct DiskManifests {
    pub files: Vec<manifests::UserFile>,
    pub warnings: Vec<String>,
}

impl Material {
    /// Reads the directory; problems go into `report`.
    pub(crate) fn load(dir: &Path, report: &mut Report) -> Material {
        let stored = load_state(dir, report);
        let install_config = load_install_config(dir, stored.install_config.as_ref(), report);
        let params = install_config.as_ref().and_then(|ic| {
            match assets::config::ClusterParamsAsset::from_config(ic, &ic.names()) {
                Ok(p) => Some(p.0),
                Err(e) => {
                    report.error("config.params", layout::INSTALL_CONFIG, e.to_string());
                    None
                }
            }
        });
        let bootstrap = load_bootstrap(dir, report);
        let certs = tls_or_stored(load_tls_dir(dir), stored.certs.clone(), report).or_else(|| {
            let set = certs_from_bootstrap(bootstrap.as_ref()?);
            set.certs.contains_key(&CertId::RootCa).then_some(set)
        });
        match &certs {
            Some(set) => report.ok(
                "config.tls",
                &set.origin_text(),
                format!(
                    "read {} certificates and {} CA bundles",
                    set.certs.len(),
                    set.bundles.len()
                ),
            ),
            None => report.error(
                "config.tls",
                &dir.display().to_string(),
                "no TLS material found (no tls/, no state file, no bootstrap config with \
                 /opt/openshift/tls/); run \
                 `okd-install create ignition-configs` (or `create pki`) in this directory",
            ),
        }
        Material {
            dir: dir.to_path_buf(),
            install_config,
            params,
            stored,
            bootstrap,
            certs,
            disk_manifests: load_disk_manifests(dir),
        }
    }
}

/// Reads the values the checks use from the state file; an absent file is no finding, an
/// unreadable file or value is one.
fn load_state(dir: &Path, report: &mut Report) -> Stored {
    let dir = AssetDir::new(dir);
    let state = match dir.state() {
        Ok(Some(state)) => state,
        Ok(None) => return Stored::default(),
        Err(e) => {
            report.error("config.state", STATE_FILE, e.to_string());
            return Stored::default();
        }
    };
    if state.is_empty() {
        report.error(
            "config.state",
            STATE_FILE,
            "has no \"assets\": it records no generated value",
        );
        return Stored::default();
    }
    Stored {
        install_config: reported(state.find::<InstallConfigAsset>(), report),
        cluster_id: reported(state.find::<ClusterIdAsset>(), report),
        certs: reported(certs_from_state(state), report),
        release: reported(state.find::<assets::ReleaseOptions>(), report),
    }
}

/// A stored value, or `None` with a finding when it cannot be read.
fn reported<T>(read: Result<Option<T>, GraphError>, report: &mut Report) -> Option<T> {
    read.unwrap_or_else(|e| {
        report.error("config.state", STATE_FILE, e.to_string());
        None
    })
}

fn load_install_config(
    dir: &Path,
    stored: Option<&InstallConfigAsset>,
    report: &mut Report,
) -> Option<InstallConfig> {
    let file = layout::INSTALL_CONFIG;
    let path = dir.join(file);
    let from_state = || stored.map(|a| a.config.clone());
    if !path.exists() {
        let ic = from_state();
        match &ic {
            Some(_) => report.ok("config.install-config", STATE_FILE, format!("{file} is absent; using the copy in the state file")),
            None => report.error("config.install-config", file, "missing, and the state file holds no copy; write it (see `okd-install explain installconfig`)"),
        }
        return ic;
    }
    match installconfig::load(&path) {
        Ok(loaded) => {
            report.ok("config.install-config", file, "loads and validates");
            Some(loaded.config)
        }
        Err(e) => {
            report.error("config.install-config", file, e.to_string());
            from_state()
        }
    }
}

fn load_bootstrap(dir: &Path, report: &mut Report) -> Option<Bootstrap> {
    let name = BOOTSTRAP_FILES.iter().find(|f| dir.join(f).is_file())?;
    // Read as data of the directory (no link out of it): its problems are reported by the
    // `.ign` checks.
    let text = read_text(dir, name).ok()?;
    let json: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            report.error("config.bootstrap", name, format!("is not JSON: {e}"));
            return None;
        }
    };
    let mut files = BTreeMap::new();
    for f in json
        .pointer("/storage/files")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(path), Ok(Some(bytes))) = (
            f["path"].as_str(),
            ignition::inline_contents(&f["contents"]),
        ) else {
            continue;
        };
        files.insert(path.to_string(), bytes);
    }
    let manifests = embedded_manifests(&files);
    Some(Bootstrap {
        name: (*name).to_string(),
        json,
        files,
        manifests,
    })
}

/// Where the bootstrap config puts the manifests.
pub(crate) const EMBEDDED_ROOT: &str = "/opt/openshift/";

/// The files directly in `manifests/` and `openshift/` below [`EMBEDDED_ROOT`] that parse as
/// Kubernetes objects, named relative to it (other files cannot be objects a check wants).
fn embedded_manifests(files: &BTreeMap<String, Vec<u8>>) -> Vec<manifests::UserFile> {
    let mut out = Vec::new();
    for (path, data) in files {
        let Some(rel) = path.strip_prefix(EMBEDDED_ROOT) else {
            continue;
        };
        let Some((dir, name)) = rel.split_once('/') else {
            continue;
        };
        let dir = [manifests::Dir::Manifests, manifests::Dir::Openshift]
            .into_iter()
            .find(|d| d.as_str() == dir);
        let (Some(dir), false) = (dir, name.contains('/')) else {
            continue;
        };
        let Ok(objects) = manifests::user::parse_objects(Path::new(rel), data) else {
            continue;
        };
        out.push(manifests::UserFile {
            dir,
            name: name.to_string(),
            data: data.clone(),
            objects,
        });
    }
    out
}

fn load_disk_manifests(dir: &Path) -> Option<Result<DiskManifests, Vec<manifests::ManifestError>>> {
    let present = |d: manifests::Dir| dir.join(d.as_str()).is_dir();
    if !present(manifests::Dir::Manifests) && !present(manifests::Dir::Openshift) {
        return None;
    }
    Some(manifests::load_dir(dir).map(|outcome| {
        DiskManifests {
            files: outcome
                .manifests
                .into_iter()
                .chain(outcome.openshift)
                .flatten()
                .collect(),
            warnings: outcome.warnings,
        }
    }))
}

/// The set to check: `tls/` when it holds every certificate (`create pki` wrote it), else the
/// state file's. A `tls/` with only some (the ones a user gave with `--load-cluster-certs`)
/// is not the cluster's whole PKI; the state file holds all of it, the user's included.
fn tls_or_stored(
    tls: Option<CertSet>,
    stored: Option<CertSet>,
    report: &mut Report,
) -> Option<CertSet> {
    match (tls, stored) {
        (Some(tls), Some(stored)) if tls.certs.len() < CertId::ALL.len() => {
            report.ok(
                "config.tls",
                &format!("{TLS_DIR}/"),
                format!(
                    "holds {} of the {} certificates (those given with --load-cluster-certs); \
                     checking the whole set of {STATE_FILE}",
                    tls.certs.len(),
                    CertId::ALL.len()
                ),
            );
            Some(stored)
        }
        (tls, stored) => tls.or(stored),
    }
}

fn load_tls_dir(dir: &Path) -> Option<CertSet> {
    let read = |rel: &str| read_text(dir, rel).ok();
    if !dir.join(CertId::RootCa.cert_path()).is_file() {
        return None;
    }
    let mut set = empty(Origin::TlsDir);
    for &id in CertId::ALL {
        if let Some(cert_pem) = read(id.cert_path()) {
            let key_pem = read(id.key_path());
            set.certs.insert(
                id,
                Pair {
                    cert_pem,
                    key_pem,
                    user_supplied: false,
                },
            );
        }
    }
    for &id in BundleId::ALL {
        if let Some(pem) = read(id.path()) {
            set.bundles.insert(id, pem);
        }
    }
    Some(set)
}

/// The stored certificates and bundles; `None` when the root CA is not among them (a run
/// that stopped before the PKI).
fn certs_from_state(state: &State) -> Result<Option<CertSet>, GraphError> {
    if assets::tls::stored_cert(state, CertId::RootCa)?.is_none() {
        return Ok(None);
    }
    let mut set = empty(Origin::State);
    for &id in CertId::ALL {
        if let Some(v) = assets::tls::stored_cert(state, id)? {
            let pair = Pair {
                cert_pem: v.cert_pem,
                key_pem: Some(v.key_pem),
                user_supplied: v.user_supplied,
            };
            set.certs.insert(id, pair);
        }
    }
    for &id in BundleId::ALL {
        if let Some(pem) = assets::tls::stored_bundle(state, id)? {
            set.bundles.insert(id, pem);
        }
    }
    Ok(Some(set))
}

/// The TLS files a bootstrap config embeds, as a certificate set.
pub(crate) fn certs_from_bootstrap(b: &Bootstrap) -> CertSet {
    let mut set = empty(Origin::Bootstrap(b.name.clone()));
    let node = |rel: &str| b.text(&node_path(rel));
    for &id in CertId::ALL {
        if let Some(cert_pem) = node(id.cert_path()) {
            set.certs.insert(
                id,
                Pair {
                    cert_pem,
                    key_pem: node(id.key_path()),
                    user_supplied: false,
                },
            );
        }
    }
    for &id in BundleId::ALL {
        if let Some(pem) = node(id.path()) {
            set.bundles.insert(id, pem);
        }
    }
    set
}

fn empty(origin: Origin) -> CertSet {
    CertSet {
        origin,
        certs: BTreeMap::new(),
        bundles: BTreeMap::new(),
    }
}
