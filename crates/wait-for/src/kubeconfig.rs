//! The admin kubeconfig on disk: where it lives and the one edit `install-complete` makes.
//!
//! After the cluster is initialized, the default ingress (router) CA is PREPENDED to every
//! cluster's `certificate-authority-data`, so that the kubeconfig also trusts endpoints behind
//! the router (OAuth, console) once the API certificate is replaced by one of theirs. The old
//! file is kept next to it as `kubeconfig.bak-<unix seconds>`; the new file is written
//! atomically with the old file's mode (it holds a client key, typically 0600).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;
use serde_json::Value;

/// `<dir>/auth/kubeconfig`, the file every cluster-facing command uses by default.
pub fn default_path(dir: &Path) -> PathBuf {
    dir.join(contract::ADMIN_KUBECONFIG_FILE)
}

/// Why the kubeconfig could not be updated.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// Reading, writing or renaming failed.
    #[error("{path}: {error}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The OS error, part of the message (not a source): callers flatten this error
        /// into a status line.
        error: std::io::Error,
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
    move |error| EditError::Io {
        path: path.to_path_buf(),
        error,
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
    let mode = fs::metadata(path)
        .map_err(io_err(path))?
        .permissions()
        .mode();
    atomic_file::write(path, bytes, mode & 0o7777).map_err(io_err(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Valid PEM framing around bytes that are not a certificate.
    const NOT_X509: &str = "-----BEGIN CERTIFICATE-----\nAAECAwQF\n-----END CERTIFICATE-----\n";

    fn kubeconfig(dir: &Path, cluster: &str) -> PathBuf {
        let path = dir.join("kubeconfig");
        let yaml =
            format!("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n{cluster}\n");
        fs::write(&path, yaml).expect("write");
        path
    }

    #[test]
    fn router_ca_that_is_not_pem_is_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = kubeconfig(dir.path(), "    server: https://h:6443");
        let before = fs::read_to_string(&path).expect("read");
        let err = prepend_router_ca(&path, "not a certificate", 1).unwrap_err();
        assert!(matches!(err, EditError::RouterCa(_)), "{err}");
        assert!(
            err.to_string().contains("no PEM CERTIFICATE block"),
            "{err}"
        );
        assert_eq!(fs::read_to_string(&path).expect("read"), before);
        assert_eq!(
            fs::read_dir(dir.path()).expect("ls").count(),
            1,
            "no backup"
        );
    }

    #[test]
    fn ca_file_reference_is_reported_with_its_field() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = kubeconfig(
            dir.path(),
            "    server: https://h:6443\n    certificate-authority: /etc/ca.crt",
        );
        let ca = router_ca();
        let err = prepend_router_ca(&path, &ca, 1).unwrap_err();
        assert!(
            err.to_string()
                .contains("clusters[0].cluster.certificate-authority-data: missing"),
            "{err}"
        );
    }

    #[test]
    fn prepend_keeps_mode_writes_backup_and_is_idempotent() {
        use base64::Engine;
        let dir = tempfile::tempdir().expect("tempdir");
        let original = api_ca();
        let data = STANDARD.encode(original.as_bytes());
        let path = kubeconfig(
            dir.path(),
            &format!("    server: https://h:6443\n    certificate-authority-data: {data}"),
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).expect("chmod");
        }
        let other = router_ca();
        let outcome = prepend_router_ca(&path, &other, 42).expect("prepend");
        let backup = dir.path().join("kubeconfig.bak-42");
        assert_eq!(
            outcome,
            PrependOutcome::Updated {
                backup: backup.clone()
            }
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).expect("meta").permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o640);
            assert_eq!(mode(&backup), 0o640);
        }
        let doc: Value =
            serde_saphyr::from_str(&fs::read_to_string(&path).expect("read")).expect("yaml");
        let b64 = doc
            .pointer("/clusters/0/cluster/certificate-authority-data")
            .and_then(Value::as_str)
            .expect("data");
        let pem = String::from_utf8(STANDARD.decode(b64).expect("b64")).expect("utf8");
        assert_eq!(pem, format!("{}\n{original}", other.trim_end()));
        // The same CA first already: nothing to do, no second backup.
        assert_eq!(
            prepend_router_ca(&path, &other, 43).expect("again"),
            PrependOutcome::AlreadyPresent
        );
        assert!(!dir.path().join("kubeconfig.bak-43").exists());
    }

    #[test]
    fn broken_certificate_inside_pem_is_refused() {
        assert!(
            parse_pem_bundle(NOT_X509.as_bytes())
                .unwrap_err()
                .contains("does not parse as X.509")
        );
    }

    /// A self-signed P-256 CA (CN=unit-test-api-ca) made once with the openssl CLI.
    fn api_ca() -> String {
        "-----BEGIN CERTIFICATE-----\n\
MIIBjjCCATOgAwIBAgIUB7AeXlGtNIQfcgOvI4s/Q89QQRQwCgYIKoZIzj0EAwIw\n\
GzEZMBcGA1UEAwwQdW5pdC10ZXN0LWFwaS1jYTAgFw0yNjExMjEyMzQyMDVaGA8y\n\
MTI2MTAyODIzNDIwNVowGzEZMBcGA1UEAwwQdW5pdC10ZXN0LWFwaS1jYTBZMBMG\n\
ByqGSM49AgEGCCqGSM49AwEHA0IABFCTTwxrq7pTnRjWYJAOIfqkIM3ygtyppeeD\n\
1VW0t0daYOC9RqJzdGOsxMuayLi+TWE3O2xkkz0QEjJJNjw62jCjUzBRMB0GA1Ud\n\
DgQWBBRQlvEcuI7a5dSjPa5FOPulPPnrXTAfBgNVHSMEGDAWgBRQlvEcuI7a5dSj\n\
Pa5FOPulPPnrXTAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0kAMEYCIQDu\n\
gcTUB0Oqqxqxb8nZVXC6zkgC6FrMVRWIwi51A6Xa9gIhAPVslqghZ1MtA43T0alU\n\
xlvVARlE+UcyPLZNb26Yz9VJ\n\
-----END CERTIFICATE-----\n"
            .to_string()
    }

    /// A self-signed P-256 CA (CN=unit-test-router-ca) made once with the openssl CLI.
    fn router_ca() -> String {
        "-----BEGIN CERTIFICATE-----\n\
MIIBlDCCATmgAwIBAgIUU8RY2GOUYmmAyg+h82XYDmzcMu8wCgYIKoZIzj0EAwIw\n\
HjEcMBoGA1UEAwwTdW5pdC10ZXN0LXJvdXRlci1jYTAgFw0yNjExMjEyMzM4MzNa\n\
GA8yMTI2MTAyODIzMzgzM1owHjEcMBoGA1UEAwwTdW5pdC10ZXN0LXJvdXRlci1j\n\
YTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABABRjBS6IWJWHCC94KN81LgRmh9f\n\
GlffBAvMIb6kmNFAzEkASNEygDB0nMRpqoH4/LJFMo+sz97hW31IXm+obG2jUzBR\n\
MB0GA1UdDgQWBBQMZDL5hkTOath+0tiUs3WK3tl30DAfBgNVHSMEGDAWgBQMZDL5\n\
hkTOath+0tiUs3WK3tl30DAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0kA\n\
MEYCIQCG7AgGQHs9rjh49fgW/MtaPIX1NnUOnQzlTtWw/gbPAAIhAPgph3FqJHoR\n\
ydaWJM7WHlBzemk2WdOey2A94ndqfUS9\n\
-----END CERTIFICATE-----\n"
            .to_string()
    }
}
