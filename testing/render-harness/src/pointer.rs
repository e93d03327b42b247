//! A pointer config (master.ign, worker.ign) applied with the real Ignition against the
//! running bootstrap Machine Config Server.
//!
//! Two facts of a test machine shape this: traffic goes to loopback only, so the pointer's
//! host name resolves to 127.0.0.1 in a private mount namespace with its own `/etc/hosts`
//! (and a pointer that names an API VIP is applied as a copy naming the api-int host); and
//! `ignition-apply` does not load a config's own `security.tls.certificateAuthorities`, so the
//! CA is taken out of the pointer config and handed over as `SSL_CERT_FILE`. Before Ignition
//! runs, the same fetch is made with curl, whose TLS errors name the problem: a wrong CA or a
//! server certificate without the name becomes a diagnosis, not a hang in Ignition's retries.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::Result;
use crate::error::Error;
use crate::host::{command_line, ignition_apply, output_of};
use crate::mcs::MCS_PORT;

/// What applying a pointer config gave.
#[derive(Debug)]
pub struct AppliedPointer {
    /// The merge URL the pointer config itself names.
    pub pointer_url: String,
    /// The config the server returned for the pool.
    pub served: Value,
    /// The root Ignition wrote the merged config into.
    pub root: PathBuf,
}

/// Why a pointer config could not fetch its pool's config.
#[derive(Debug, thiserror::Error)]
pub enum PointerError {
    /// The pointer config is not what `okd-install` writes.
    #[error("{}: {why}", path.display())]
    Malformed {
        /// The pointer config.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The server's certificate does not chain to the CA in the pointer config.
    #[error(
        "{}: the Machine Config Server at {url} presents a certificate that the root CA in this pointer config did not sign, so a node booting from it would retry forever in its initramfs. Regenerate the pointer configs from the same install directory as bootstrap.ign (okd-install create ignition-configs), or check tls/machine-config-server.crt against tls/root-ca.crt with okd-install verify. curl said: {detail}",
        pointer.display()
    )]
    UnknownAuthority {
        /// The pointer config.
        pointer: PathBuf,
        /// The URL.
        url: String,
        /// curl's message.
        detail: String,
    },
    /// The server's certificate does not name the host the pointer config uses.
    #[error(
        "{}: the Machine Config Server certificate does not name {host}, the host this pointer config fetches from, so a node booting from it would refuse the server. The machine-config-server certificate must carry api-int.<cluster domain> and every API VIP as SANs (okd-install verify lists them). curl said: {detail}",
        pointer.display()
    )]
    NameMismatch {
        /// The pointer config.
        pointer: PathBuf,
        /// The host.
        host: String,
        /// curl's message.
        detail: String,
    },
    /// Any other failed fetch.
    #[error("{}: fetching {url} failed: {detail}", pointer.display())]
    Fetch {
        /// The pointer config.
        pointer: PathBuf,
        /// The URL.
        url: String,
        /// What failed.
        detail: String,
    },
    /// A harness step failed.
    #[error(transparent)]
    Harness(#[from] Error),
}

/// A pointer config read for a test fetch.
pub(crate) struct Pointer {
    config: Value,
    url: String,
    /// The root CA the pointer config trusts (PEM).
    pub(crate) ca: Vec<u8>,
    fetch_host: String,
    /// The URL fetched: the pointer's own, or `api_int`'s when it names an address.
    pub(crate) fetch_url: String,
}

/// Reads `pointer`; a merge URL naming an IP address (an API VIP) is fetched from `api_int`.
pub(crate) fn read_pointer(
    pointer: &Path,
    api_int: &str,
) -> std::result::Result<Pointer, PointerError> {
    let malformed = |why: String| PointerError::Malformed {
        path: pointer.to_path_buf(),
        why,
    };
    let text = std::fs::read_to_string(pointer).map_err(Error::io(pointer))?;
    let mut config: Value = serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))?;
    let pointer_url = config["ignition"]["config"]["merge"][0]["source"]
        .as_str()
        .ok_or_else(|| malformed("no ignition.config.merge[0].source".into()))?
        .to_string();
    let ca_url = config["ignition"]["security"]["tls"]["certificateAuthorities"][0]["source"]
        .as_str()
        .ok_or_else(|| malformed("no certificate authority".into()))?;
    let ca = ignition::decode_data_url(ca_url).map_err(|e| malformed(e.to_string()))?;
    let (host, rest) = split_url(&pointer_url)
        .ok_or_else(|| malformed(format!("cannot read the URL {pointer_url}")))?;
    let fetch_host = if host
        .trim_matches(['[', ']'])
        .parse::<std::net::IpAddr>()
        .is_ok()
    {
        api_int.to_string()
    } else {
        host.to_string()
    };
    let fetch_url = format!("https://{fetch_host}{rest}");
    config["ignition"]["config"]["merge"][0]["source"] = Value::String(fetch_url.clone());
    Ok(Pointer {
        config,
        url: pointer_url,
        ca,
        fetch_host,
        fetch_url,
    })
}

/// Applies `pointer` with the real Ignition into `work/root`, fetching from the server on
/// 127.0.0.1. `api_int` is the api-int host name of the cluster: a pointer config naming an
/// IP address (an API VIP) is applied as a copy that names `api_int` instead.
pub fn apply_pointer(
    pointer: &Path,
    api_int: &str,
    work: &Path,
) -> std::result::Result<AppliedPointer, PointerError> {
    let Pointer {
        config,
        url: pointer_url,
        ca,
        fetch_host,
        fetch_url: fetched_url,
    } = read_pointer(pointer, api_int)?;
    std::fs::create_dir_all(work).map_err(Error::io(work))?;
    let ca_file = write(work, "ca.pem", &ca)?;
    let served_file = work.join("served.ign");
    let text = fetch(pointer, &fetched_url, &fetch_host, &ca_file, &served_file)?;
    let served: Value = serde_json::from_str(&text).map_err(|e| PointerError::Fetch {
        pointer: pointer.to_path_buf(),
        url: fetched_url.clone(),
        detail: format!("the server answered something that is not JSON: {e}"),
    })?;
    let copy = write(work, "pointer.ign", config.to_string().as_bytes())?;
    let hosts = write(
        work,
        "hosts",
        format!("127.0.0.1 localhost {fetch_host}\n").as_bytes(),
    )?;
    let root = work.join("root");
    crate::host::seed_accounts(&root)?;
    run_ignition(&copy, &root, &ca_file, &hosts)?;
    Ok(AppliedPointer {
        pointer_url,
        served,
        root,
    })
}

/// `https://HOST:PORT/PATH` split into the host and `:PORT/PATH`.
fn split_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("https://")?;
    let at = if rest.starts_with('[') {
        rest.find(']')? + 1
    } else {
        rest.find(':')?
    };
    Some((&rest[..at], &rest[at..]))
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf> {
    let path = dir.join(name);
    std::fs::write(&path, bytes).map_err(Error::io(&path))?;
    Ok(path)
}

/// The fetch Ignition will make, made with curl into `out`: the body, or a diagnosis.
fn fetch(
    pointer: &Path,
    url: &str,
    host: &str,
    ca: &Path,
    out: &Path,
) -> std::result::Result<String, PointerError> {
    let mut cmd = Command::new("curl");
    cmd.args(["--silent", "--show-error", "--fail", "--max-time", "20"])
        .arg("--cacert")
        .arg(ca)
        .arg("--resolve")
        .arg(format!("{host}:{MCS_PORT}:127.0.0.1"))
        .args(["--header", crate::mcs::IGNITION_ACCEPT])
        .arg("--output")
        .arg(out)
        .arg(url);
    let result = cmd.output().map_err(|source| Error::Spawn {
        command: command_line(&cmd),
        source,
    })?;
    if !result.status.success() {
        let detail = String::from_utf8_lossy(&result.stderr).trim().to_string();
        return Err(classify(pointer, url, host, detail));
    }
    Ok(std::fs::read_to_string(out).map_err(Error::io(out))?)
}

fn classify(pointer: &Path, url: &str, host: &str, detail: String) -> PointerError {
    let lower = detail.to_lowercase();
    let pointer = pointer.to_path_buf();
    if lower.contains("subject name") || lower.contains("does not match target host") {
        PointerError::NameMismatch {
            pointer,
            host: host.to_string(),
            detail,
        }
    } else if lower.contains("issuer certificate")
        || lower.contains("self-signed")
        || lower.contains("self signed")
        || lower.contains("certificate verify failed")
    {
        PointerError::UnknownAuthority {
            pointer,
            url: url.to_string(),
            detail,
        }
    } else {
        PointerError::Fetch {
            pointer,
            url: url.to_string(),
            detail,
        }
    }
}

/// `ignition-apply` of `config` into `root`, in a private mount namespace whose /etc/hosts
/// is `hosts`, trusting `ca`. Users are a section Ignition will not change on a running
/// system (`--ignore-unsupported`); they are checked in the served config instead.
fn run_ignition(config: &Path, root: &Path, ca: &Path, hosts: &Path) -> Result<()> {
    let apply = ignition_apply()?;
    let mut cmd = Command::new("timeout");
    cmd.arg(Duration::from_secs(120).as_secs().to_string())
        .args([
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "--",
            "sh",
            "-c",
        ])
        .arg(r#"mount --bind "$1" /etc/hosts && exec "$2" --ignore-unsupported --root "$3" "$4""#)
        .arg("sh")
        .arg(hosts)
        .arg(&apply.0)
        .arg(root)
        .arg(config)
        .env("SSL_CERT_FILE", ca);
    output_of(&mut cmd).map(|_| ())
}
