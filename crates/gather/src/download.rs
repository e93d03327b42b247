//! Fetching the bundle over SFTP into the output directory, atomically, keeping partial data.

use std::path::{Path, PathBuf};

use russh::client::Handle;
use russh_sftp::client::SftpSession;
use russh_sftp::client::error::Error as SftpError;
use russh_sftp::protocol::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::connection::{Client, address};
use crate::{GatherError, GatherEvent, GatherOptions};

const CHUNK: usize = 256 * 1024;

/// Downloads `log-bundle-<ID>.tar.gz` into `opts.out_dir`: from where the gather script's
/// last lines say it wrote it, else from the login directory (a script that does not say).
pub(crate) async fn fetch_bundle(
    handle: &Handle<Client>,
    opts: &GatherOptions,
    last_lines: &[String],
    log: &mut dyn FnMut(GatherEvent),
) -> Result<PathBuf, GatherError> {
    let remote = announced(opts, last_lines).unwrap_or_else(|| opts.bundle_name());
    let unwritable: Vec<String> = last_lines
        .iter()
        .filter(|l| l.starts_with(contract::GATHER_BUNDLE_UNWRITABLE))
        .cloned()
        .collect();
    if !unwritable.is_empty() {
        log(GatherEvent::BundleElsewhere {
            remote: remote.clone(),
            unwritable,
        });
    }
    let sftp = open_sftp(handle, opts).await?;
    let download_error = |reason: String, partial: Option<PathBuf>| GatherError::Download {
        remote: remote.clone(),
        reason,
        partial,
    };
    let size = match sftp.metadata(remote.as_str()).await {
        Ok(meta) => meta.size,
        Err(SftpError::Status(s)) if s.status_code == StatusCode::NoSuchFile => {
            tracing::debug!("gather output ended with: {last_lines:?}");
            return Err(GatherError::BundleMissing {
                remote: remote.clone(),
                user: opts.user.clone(),
            });
        }
        Err(e) => return Err(download_error(format!("cannot stat it: {e}"), None)),
    };
    if size == Some(0) {
        return Err(GatherError::BundleEmpty {
            remote: remote.clone(),
            user: opts.user.clone(),
            last_lines: last_lines.to_vec(),
        });
    }
    log(GatherEvent::Downloading {
        remote: remote.clone(),
        size,
    });
    let mut file = sftp
        .open(remote.as_str())
        .await
        .map_err(|e| download_error(format!("cannot open it: {e}"), None))?;
    let target = opts.out_dir.join(opts.bundle_name());
    let io_error = |path: &Path, error| GatherError::Io {
        path: path.to_path_buf(),
        error,
    };
    std::fs::create_dir_all(&opts.out_dir).map_err(|e| io_error(&opts.out_dir, e))?;
    // The half download of a gather that was killed is removed now; a live one's stays.
    for leftover in atomic_file::remove_abandoned_beside(&target) {
        log(GatherEvent::RemovedLeftover { path: leftover });
    }
    let temp = atomic_file::stage_empty(&target, 0o600).map_err(|e| io_error(&opts.out_dir, e))?;
    let copied = copy(&mut file, &temp).await;
    let _ = sftp.close().await;
    match copied {
        Ok(bytes) if size.is_none_or(|s| s == bytes) => {
            temp.commit().map_err(|e| io_error(&target, e))?;
            log(GatherEvent::Downloaded {
                path: target.clone(),
                bytes,
            });
            Ok(target)
        }
        Ok(bytes) => {
            let reason = format!("received {bytes} of {} bytes", size.unwrap_or_default());
            Err(download_error(reason, keep_partial(temp, &target, bytes)))
        }
        Err((bytes, reason)) => Err(download_error(reason, keep_partial(temp, &target, bytes))),
    }
}

/// Where the gather script's last lines say it wrote the bundle asked for (`The bundle is at
/// PATH`); `None` when they do not say, or name another file.
fn announced(opts: &GatherOptions, last_lines: &[String]) -> Option<String> {
    let path = last_lines
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix(contract::GATHER_BUNDLE_AT))?
        .trim();
    let name = path.rsplit('/').next()?;
    (name == opts.bundle_name()).then(|| path.to_string())
}

async fn open_sftp(
    handle: &Handle<Client>,
    opts: &GatherOptions,
) -> Result<SftpSession, GatherError> {
    let session_error = |reason: String| GatherError::Session {
        address: address(opts),
        doing: "starting SFTP to download the bundle".to_string(),
        reason,
    };
    let channel = handle
        .channel_open_session()
        .await
        .map_err(|e| session_error(e.to_string()))?;
    channel
        .request_subsystem(true, "sftp")
        .await
        .map_err(|e| session_error(e.to_string()))?;
    SftpSession::new(channel.into_stream())
        .await
        .map_err(|e| session_error(e.to_string()))
}

/// Copies the remote file into the temp file; on failure returns the bytes already written.
async fn copy(
    remote: &mut russh_sftp::client::fs::File,
    temp: &atomic_file::Staged,
) -> Result<u64, (u64, String)> {
    let std_file = temp.file().try_clone().map_err(|e| (0, e.to_string()))?;
    let mut out = tokio::fs::File::from_std(std_file);
    let mut buf = vec![0u8; CHUNK];
    let mut total = 0u64;
    loop {
        let n = match remote.read(&mut buf).await {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => return Err((total, format!("reading from the host: {e}"))),
        };
        out.write_all(&buf[..n])
            .await
            .map_err(|e| (total, format!("writing locally: {e}")))?;
        total += n as u64;
    }
    out.flush().await.map_err(|e| (total, e.to_string()))?;
    out.sync_all().await.map_err(|e| (total, e.to_string()))?;
    Ok(total)
}

/// Keeps a partial download as `<bundle>.partial`; an empty one is not worth keeping.
fn keep_partial(temp: atomic_file::Staged, target: &Path, bytes: u64) -> Option<PathBuf> {
    if bytes == 0 {
        return None;
    }
    let mut name = target.as_os_str().to_owned();
    name.push(".partial");
    let partial = PathBuf::from(name);
    temp.commit_as(&partial).ok().map(|_| partial)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[&str]) -> Vec<String> {
        text.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn the_bundle_is_fetched_from_where_the_script_says_it_is() {
        let opts = GatherOptions::new("h", "/tmp", "20261128120000");
        let home = lines(&[
            "Leaving out secrets",
            "The bundle is at /home/core/log-bundle-20261128120000.tar.gz",
        ]);
        assert_eq!(
            announced(&opts, &home).as_deref(),
            Some("/home/core/log-bundle-20261128120000.tar.gz")
        );
        let moved = lines(&[
            "Cannot write the bundle to /home/core/log-bundle-20261128120000.tar.gz: gzip: \
             stdout: No space left on device",
            "The bundle is at /tmp/log-bundle-20261128120000.tar.gz",
        ]);
        assert_eq!(
            announced(&opts, &moved).as_deref(),
            Some("/tmp/log-bundle-20261128120000.tar.gz")
        );
        // A script that does not say, or names another file: the login directory's bundle.
        assert_eq!(announced(&opts, &lines(&["Leaving out secrets"])), None);
        let other = lines(&["The bundle is at /tmp/log-bundle-1.tar.gz"]);
        assert_eq!(announced(&opts, &other), None);
    }
}
