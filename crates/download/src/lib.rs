//! Fetch a boot image (live ISO, PXE kernel, initramfs, rootfs) into a local cache.
//!
//! The files are large (about 1 GiB for an ISO) and published with their sha256, so a fetch
//! is shaped around three promises:
//!
//! - **Nothing unchecked under the final name.** Bytes are streamed to
//!   `<cache>/<sha256>-<file name>.part`, hashed on the way, and renamed to the final name only
//!   when the sha256 matches. A mismatch deletes the partial file and names both hashes.
//! - **A cut connection costs only the missing bytes.** The transfer is retried a bounded
//!   number of times with an HTTP `Range` request from where it stopped, and a `.part` left by
//!   an earlier run is resumed the same way.
//! - **The cache is the source of truth offline.** A file under its final name was verified
//!   when it got that name, so a later fetch returns it without any request and without
//!   hashing a gigabyte again (the name is the proof: only a verified file is ever renamed to
//!   it). With [`FetchOptions::offline`] nothing else is tried, and a miss says how to fill it.
//!
//! Memory stays small: the body goes chunk by chunk to disk. HTTPS verifies against the
//! system's CA certificates with rustls on aws-lc-rs, the TLS stack kube already uses.
//! Progress is reported as numbers; drawing a bar is the caller's business.

#![deny(missing_docs)]

mod cache;
mod http;
mod transfer;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use cache::{cache_path, default_cache_dir};

/// How to fetch.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// Where downloaded files live (see [`default_cache_dir`]).
    pub cache_dir: PathBuf,
    /// Use the cache only; never open a connection.
    pub offline: bool,
    /// How many times a failed transfer is resumed before giving up.
    pub retries: u32,
    /// Wait before the first retry; doubled for each further one.
    pub retry_delay: Duration,
    /// A connection that delivers no byte for this long counts as cut.
    pub idle_timeout: Duration,
}

impl FetchOptions {
    /// Online, 5 retries starting 1 s apart, 60 s idle timeout.
    pub fn new(cache_dir: impl Into<PathBuf>) -> Self {
        FetchOptions {
            cache_dir: cache_dir.into(),
            offline: false,
            retries: 5,
            retry_delay: Duration::from_secs(1),
            idle_timeout: Duration::from_secs(60),
        }
    }
}

/// How far a fetch is: bytes of the file on disk so far, and the file's size when the
/// server said it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Bytes written (a resumed transfer starts at what the `.part` file held).
    pub done: u64,
    /// The whole file's size, if known.
    pub total: Option<u64>,
}

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    /// Neither `XDG_CACHE_HOME` nor `HOME` is set.
    #[error("cannot find a cache directory: neither XDG_CACHE_HOME nor HOME is set")]
    NoCacheDir,
    /// The expected sha256 is not 64 hex digits.
    #[error("{sha256:?} is not a sha256 (64 hexadecimal digits)")]
    BadSha256 {
        /// The value given.
        sha256: String,
    },
    /// The URL is not one we can fetch.
    #[error("cannot download {url}: {reason}")]
    BadUrl {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// Offline and not in the cache.
    #[error(
        "{name} is not in the download cache {cache_dir} and offline mode forbids fetching it \
         from {url}; run once online to fill the cache, or give the file yourself (e.g. --iso FILE)"
    )]
    Offline {
        /// The artifact's file name.
        name: String,
        /// Where it would be downloaded from.
        url: String,
        /// The cache searched.
        cache_dir: PathBuf,
    },
    /// A local file operation failed.
    #[error("{action} {path}")]
    Io {
        /// What was being done ("writing", "creating the cache directory", …).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Another process is downloading the same file into the same cache.
    #[error("{path} is being downloaded by another process; wait for it or remove the file")]
    Busy {
        /// The `.part` file.
        path: PathBuf,
    },
    /// The server answered with a status that retrying will not change.
    #[error("downloading {url}: the server answered {status}")]
    Status {
        /// The URL requested last (after redirects).
        url: String,
        /// The HTTP status.
        status: u16,
    },
    /// The transfer kept failing.
    #[error(
        "downloading {url}: gave up after {attempts} attempts ({done} bytes kept in {part} for the next run)"
    )]
    Transfer {
        /// The URL.
        url: String,
        /// Attempts made.
        attempts: u32,
        /// Bytes on disk.
        done: u64,
        /// The partial file, resumed by the next fetch.
        part: PathBuf,
        /// The last failure.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The file's content is not what the stream metadata promised.
    #[error(
        "{url}: sha256 mismatch, expected {expected} but the download has {actual}; the download was deleted"
    )]
    Mismatch {
        /// The URL.
        url: String,
        /// The sha256 asked for.
        expected: String,
        /// The sha256 of what arrived.
        actual: String,
    },
    /// The server's certificate failed verification.
    #[error(
        "downloading {url}: the server's certificate is not trusted ({reason}); for a mirror with a CA of its own, add that CA to the system trust store, or name its PEM file in SSL_CERT_FILE"
    )]
    Untrusted {
        /// The URL requested.
        url: String,
        /// rustls's verdict.
        reason: String,
    },
    /// The system's CA certificates could not be loaded for HTTPS.
    #[error("loading the system CA certificates for HTTPS")]
    Tls(#[source] std::io::Error),
}

/// Fetches `url` into the cache unless it is there, checked against `sha256`; returns the
/// cached file. Blocking: it runs its own single-threaded runtime, so call it from
/// synchronous code (from async code use [`fetch_async`]).
pub fn fetch(
    url: &str,
    sha256: &str,
    options: &FetchOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<PathBuf, DownloadError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| DownloadError::Io {
            action: "starting the download runtime for",
            path: options.cache_dir.clone(),
            source,
        })?;
    runtime.block_on(fetch_async(url, sha256, options, progress))
}

/// [`fetch`] for async callers.
pub async fn fetch_async(
    url: &str,
    sha256: &str,
    options: &FetchOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<PathBuf, DownloadError> {
    let target = cache_path(url, sha256, &options.cache_dir)?;
    if let Some(size) = cache::cached_size(&target) {
        progress(Progress {
            done: size,
            total: Some(size),
        });
        return Ok(target);
    }
    if options.offline {
        return Err(DownloadError::Offline {
            name: cache::file_name(url).to_string(),
            url: url.to_string(),
            cache_dir: options.cache_dir.clone(),
        });
    }
    cache::create_dir(&options.cache_dir)?;
    transfer::run(
        url,
        &sha256.to_ascii_lowercase(),
        &target,
        options,
        progress,
    )
    .await?;
    Ok(target)
}

/// The `.part` file a transfer of `target` writes.
fn part_path(target: &Path) -> PathBuf {
    let mut name = target.as_os_str().to_owned();
    name.push(".part");
    PathBuf::from(name)
}
