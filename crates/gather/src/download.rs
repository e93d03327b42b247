//! Fetching the bundle over SFTP into the output directory, atomically, keeping partial data.

use std::path::{Path, PathBuf};

use russh::client::Handle;
use russh_sftp::client::SftpSession;
use russh_sftp::client::error::Error as SftpError;
use russh_sftp::protocol::StatusCode;
use tempfile::NamedTempFile;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::connection::{Client, address};
use crate::{GatherError, GatherEvent, GatherOptions};

const CHUNK: usize = 256 * 1024;

/// Downloads `log-bundle-<ID>.tar.gz` from the login directory into `opts.out_dir`.
pub(crate) async fn fetch_bundle(
    handle: &Handle<Client>,
    opts: &GatherOptions,
    last_lines: &[String],
    log: &mut dyn FnMut(GatherEvent),
) -> Result<PathBuf, GatherError> {
    let remote = opts.bundle_name();
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
    log(GatherEvent::Downloading {
        remote: remote.clone(),
        size,
    });
    let mut file = sftp
        .open(remote.as_str())
        .await
        .map_err(|e| download_error(format!("cannot open it: {e}"), None))?;
    let target = opts.out_dir.join(&remote);
    let io_error = |path: &Path, error| GatherError::Io {
        path: path.to_path_buf(),
        error,
    };
    std::fs::create_dir_all(&opts.out_dir).map_err(|e| io_error(&opts.out_dir, e))?;
    let temp = tempfile::Builder::new()
        .prefix(".log-bundle-")
        .suffix(".tmp")
        .tempfile_in(&opts.out_dir)
        .map_err(|e| io_error(&opts.out_dir, e))?;
    let copied = copy(&mut file, &temp).await;
    let _ = sftp.close().await;
    match copied {
        Ok(bytes) if size.is_none_or(|s| s == bytes) => {
            temp.persist(&target)
                .map_err(|e| io_error(&target, e.error))?;
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
    temp: &NamedTempFile,
) -> Result<u64, (u64, String)> {
    let std_file = temp.as_file().try_clone().map_err(|e| (0, e.to_string()))?;
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
fn keep_partial(temp: NamedTempFile, target: &Path, bytes: u64) -> Option<PathBuf> {
    if bytes == 0 {
        return None;
    }
    let mut name = target.as_os_str().to_owned();
    name.push(".partial");
    let partial = PathBuf::from(name);
    temp.persist(&partial).ok().map(|_| partial)
}
