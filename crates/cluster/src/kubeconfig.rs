//! The admin kubeconfig on disk: where it lives and the one edit `install-complete` makes.
//!
//! After the cluster is initialized, the default ingress (router) CA is PREPENDED to every
//! cluster's `certificate-authority-data`, so that the kubeconfig also trusts endpoints behind
//! the router (OAuth, console) once the API certificate is replaced by one of theirs. The old
//! file is kept next to it as `kubeconfig.bak-<unix seconds>`; the new file is written
//! atomically with the old file's mode (it holds a client key, typically 0600).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;
use serde_json::Value;

/// `<dir>/auth/kubeconfig`, the file every cluster-facing command uses by default.
pub fn default_path(dir: &Path) -> PathBuf {
    dir.join("auth").join("kubeconfig")
}

/// Why the kubeconfig could not be updated.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// Reading, writing or renaming failed.
    #[error("{path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not a kubeconfig we can edit safely.
    #[error("{path}: {field}: {problem}")]
    Content {
        /// The kubeconfig.
        path: PathBuf,
        /// Path of the offending field, e.g. `clusters[0].cluster.certificate-authority-data`.
        field: String,
        /// What is wrong and how to fix it.
        problem: String,
    },
    /// The router CA from the cluster is not a PEM certificate bundle.
    #[error(
        "configmap openshift-config-managed/default-ingress-cert key ca-bundle.crt: {0}; \
         the ingress operator has not published a usable CA yet"
    )]
    RouterCa(String),
}

/// What [`prepend_router_ca`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrependOutcome {
    /// The file was rewritten; the previous content is at `backup`.
    Updated {
        /// Where the previous file was kept.
        backup: PathBuf,
    },
    /// Every cluster already starts with the router CA (a re-run): nothing written.
    AlreadyPresent,
}

/// Parse a PEM bundle into DER certificates; every block must be a certificate that parses.
pub fn parse_pem_bundle(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("not valid PEM: {e}"))?;
    if certs.is_empty() {
        return Err("no PEM CERTIFICATE block found".into());
    }
    for (i, c) in certs.iter().enumerate() {
        x509_parser::parse_x509_certificate(c)
            .map_err(|e| format!("certificate #{} does not parse as X.509: {e}", i + 1))?;
    }
    Ok(certs)
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> EditError + '_ {
    move |source| EditError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Prepend `router_ca_pem` to each cluster's `certificate-authority-data` in the kubeconfig
/// at `path`. `unix_ts` names the backup (`<file>.bak-<unix_ts>`); the caller passes the
/// clock so tests and deterministic runs control it.
pub fn prepend_router_ca(
    path: &Path,
    router_ca_pem: &str,
    unix_ts: u64,
) -> Result<PrependOutcome, EditError> {
    let router = parse_pem_bundle(router_ca_pem.as_bytes()).map_err(EditError::RouterCa)?;
    let original = fs::read_to_string(path).map_err(io_err(path))?;
    let mut doc: Value = serde_saphyr::from_str(&original).map_err(|e| EditError::Content {
        path: path.to_path_buf(),
        field: "(document)".into(),
        problem: format!("not valid YAML: {e}"),
    })?;
    let changed = prepend_in_doc(path, &mut doc, router_ca_pem, &router)?;
    if !changed {
        return Ok(PrependOutcome::AlreadyPresent);
    }
    // Plain scalars only: kubeconfig readers expect `key: base64` on one line.
    let mut options = serde_saphyr::SerializerOptions::default();
    options.prefer_block_scalars = false;
    let yaml =
        serde_saphyr::to_string_with_options(&doc, options).map_err(|e| EditError::Content {
            path: path.to_path_buf(),
            field: "(document)".into(),
            problem: format!("cannot serialize: {e}"),
        })?;
    let backup = backup_path(path, unix_ts);
    fs::copy(path, &backup).map_err(io_err(&backup))?;
    write_atomic_like(path, yaml.as_bytes())?;
    Ok(PrependOutcome::Updated { backup })
}

fn backup_path(path: &Path, unix_ts: u64) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".bak-{unix_ts}"));
    path.with_file_name(name)
}

/// Returns whether any cluster was changed.
fn prepend_in_doc(
    path: &Path,
    doc: &mut Value,
    router_pem: &str,
    router: &[CertificateDer<'static>],
) -> Result<bool, EditError> {
    let content = |field: String, problem: &str| EditError::Content {
        path: path.to_path_buf(),
        field,
        problem: problem.to_string(),
    };
    let clusters = doc
        .get_mut("clusters")
        .and_then(Value::as_array_mut)
        .filter(|c| !c.is_empty())
        .ok_or_else(|| content("clusters".into(), "missing or empty"))?;
    let mut changed = false;
    for (i, entry) in clusters.iter_mut().enumerate() {
        let field = format!("clusters[{i}].cluster.certificate-authority-data");
        let data = entry
            .pointer_mut("/cluster/certificate-authority-data")
            .ok_or_else(|| {
                content(
                    field.clone(),
                    "missing; only embedded CA data can be extended (a certificate-authority \
                     file path is left alone)",
                )
            })?;
        let existing = STANDARD
            .decode(data.as_str().unwrap_or_default().trim())
            .map_err(|e| content(field.clone(), &format!("not base64: {e}")))?;
        let existing_certs = parse_pem_bundle(&existing).map_err(|e| content(field.clone(), &e))?;
        if existing_certs.starts_with(router) {
            continue;
        }
        let mut combined = router_pem.trim_end().as_bytes().to_vec();
        combined.push(b'\n');
        combined.extend_from_slice(&existing);
        *data = Value::String(STANDARD.encode(&combined));
        changed = true;
    }
    Ok(changed)
}

/// Write to a temp file in the same directory with the target's current mode, then rename
/// over the target: readers see the old or the new file, never half of one.
fn write_atomic_like(path: &Path, bytes: &[u8]) -> Result<(), EditError> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let perms = fs::metadata(path).map_err(io_err(path))?.permissions();
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io_err(dir))?;
    tmp.write_all(bytes).map_err(io_err(tmp.path()))?;
    tmp.as_file().sync_all().map_err(io_err(path))?;
    fs::set_permissions(tmp.path(), perms).map_err(io_err(path))?;
    tmp.persist(path).map_err(|e| EditError::Io {
        path: path.to_path_buf(),
        source: e.error,
    })?;
    Ok(())
}
