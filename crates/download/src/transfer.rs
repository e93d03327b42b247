//! The resumable transfer: attempts against the `.part` file, then the sha256 check and the
//! rename.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::{CONTENT_LENGTH, CONTENT_RANGE};
use hyper::{Response, StatusCode, Uri};
use sha2::{Digest, Sha256};

use crate::http::{self, Client, RequestError};
use crate::{DownloadError, FetchOptions, Progress};

/// Downloads `url` into `target`'s `.part`, checks it against `expected` and renames it to
/// `target`.
pub(crate) async fn run(
    url: &str,
    expected: &str,
    target: &Path,
    options: &FetchOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<(), DownloadError> {
    let uri = http::parse(url)?;
    let mut part = Part::open(crate::part_path(target))?;
    let client = http::client()?;
    let mut attempts = 0;
    loop {
        attempts += 1;
        match attempt(&client, uri.clone(), &mut part, options, progress).await {
            Ok(()) => break,
            Err(RequestError::Fatal(e)) => {
                part.discard_if_empty();
                return Err(e);
            }
            Err(RequestError::Transient(source)) if attempts > options.retries => {
                return Err(DownloadError::Transfer {
                    url: url.to_string(),
                    attempts,
                    done: part.len,
                    part: part.path.clone(),
                    source,
                });
            }
            Err(RequestError::Transient(_)) => tokio::time::sleep(backoff(options, attempts)).await,
        }
    }
    part.finish(url, expected, target)
}

/// The wait after the `attempts`-th failure: doubling, at most a minute.
fn backoff(options: &FetchOptions, attempts: u32) -> Duration {
    let factor = 1u32 << attempts.saturating_sub(1).min(6);
    (options.retry_delay * factor).min(Duration::from_secs(60))
}

/// A transient failure with a message.
fn transient(message: String) -> RequestError {
    RequestError::Transient(message.into())
}

/// One request: from the `.part`'s end when it has bytes, to the end of the body.
async fn attempt(
    client: &Client,
    uri: Uri,
    part: &mut Part,
    options: &FetchOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<(), RequestError> {
    let from = part.len;
    let idle = options.idle_timeout;
    let (uri, response) = tokio::time::timeout(idle, http::get(client, uri, from))
        .await
        .map_err(|_| transient(format!("no answer within {idle:?}")))??;
    let total = match response.status() {
        StatusCode::PARTIAL_CONTENT => resumed_total(&response, from, part)?,
        StatusCode::OK => {
            // The server ignored the range: start over.
            part.reset().map_err(RequestError::Fatal)?;
            header_u64(&response, CONTENT_LENGTH)
        }
        // Nothing after our last byte: the .part may be whole, the sha256 decides.
        StatusCode::RANGE_NOT_SATISFIABLE if from > 0 => return Ok(()),
        status if http::is_transient(status) => {
            return Err(transient(format!("{uri}: the server answered {status}")));
        }
        status => {
            return Err(RequestError::Fatal(DownloadError::Status {
                url: uri.to_string(),
                status: status.as_u16(),
            }));
        }
    };
    progress(Progress {
        done: part.len,
        total,
    });
    copy_body(response.into_body(), part, total, idle, progress).await
}

/// The file size a `206 Partial Content` names, once it is sure to continue at `from`; a
/// server resuming elsewhere makes the next attempt start over.
fn resumed_total(
    response: &Response<Incoming>,
    from: u64,
    part: &mut Part,
) -> Result<Option<u64>, RequestError> {
    let range = response
        .headers()
        .get(CONTENT_RANGE)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_content_range);
    match range {
        Some((start, total)) if start == from => Ok(total),
        _ => {
            part.reset().map_err(RequestError::Fatal)?;
            Err(transient(format!(
                "the server did not resume at byte {from}; starting over"
            )))
        }
    }
}

/// `bytes START-END/TOTAL` (TOTAL may be `*`).
fn parse_content_range(value: &str) -> Option<(u64, Option<u64>)> {
    let rest = value.trim().strip_prefix("bytes ")?;
    let (range, total) = rest.split_once('/')?;
    let start = range.split_once('-')?.0.trim().parse().ok()?;
    Some((start, total.trim().parse().ok()))
}

/// A numeric header.
fn header_u64(response: &Response<Incoming>, name: hyper::header::HeaderName) -> Option<u64> {
    response.headers().get(name)?.to_str().ok()?.parse().ok()
}

/// Streams the body into the `.part`, chunk by chunk.
async fn copy_body(
    mut body: Incoming,
    part: &mut Part,
    total: Option<u64>,
    idle: Duration,
    progress: &mut dyn FnMut(Progress),
) -> Result<(), RequestError> {
    loop {
        let frame = tokio::time::timeout(idle, body.frame())
            .await
            .map_err(|_| transient(format!("no data for {idle:?}")))?;
        match frame {
            None => break,
            Some(Err(e)) => return Err(RequestError::Transient(e.into())),
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    part.write(&data).map_err(RequestError::Fatal)?;
                    progress(Progress {
                        done: part.len,
                        total,
                    });
                }
            }
        }
    }
    match total {
        Some(total) if part.len < total => Err(transient(format!(
            "the connection closed after {} of {total} bytes",
            part.len
        ))),
        _ => Ok(()),
    }
}

/// The `.part` file, locked against a second process, with the running sha256 of its bytes.
struct Part {
    path: PathBuf,
    file: File,
    hasher: Sha256,
    len: u64,
}

impl Part {
    /// Opens (or creates) the `.part` and hashes what an earlier run left in it.
    fn open(path: PathBuf) -> Result<Part, DownloadError> {
        let io = |action| {
            let path = path.clone();
            move |source| DownloadError::Io {
                action,
                path,
                source,
            }
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io("opening"))?;
        if file.try_lock().is_err() {
            return Err(DownloadError::Busy { path });
        }
        let (hasher, len) = hash_all(&mut file).map_err(io("reading"))?;
        Ok(Part {
            path,
            file,
            hasher,
            len,
        })
    }

    /// Removes the `.part` when no byte arrived (a refused certificate, a 404 at once): it
    /// has nothing for the next run to resume. Removed while still locked, so no other
    /// process has started on it.
    fn discard_if_empty(&self) {
        if self.len == 0 {
            let _ = std::fs::remove_file(&self.path);
        }
    }

    fn io_error(&self, action: &'static str, source: std::io::Error) -> DownloadError {
        DownloadError::Io {
            action,
            path: self.path.clone(),
            source,
        }
    }

    /// Appends `data`.
    fn write(&mut self, data: &[u8]) -> Result<(), DownloadError> {
        self.file
            .write_all(data)
            .map_err(|e| self.io_error("writing", e))?;
        self.hasher.update(data);
        self.len += data.len() as u64;
        Ok(())
    }

    /// Empties the file for a transfer from the start.
    fn reset(&mut self) -> Result<(), DownloadError> {
        self.file
            .set_len(0)
            .and_then(|()| self.file.seek(SeekFrom::Start(0)).map(drop))
            .map_err(|e| self.io_error("truncating", e))?;
        self.hasher = Sha256::new();
        self.len = 0;
        Ok(())
    }

    /// Renames the file to `target` if its sha256 is `expected`; deletes it otherwise.
    fn finish(self, url: &str, expected: &str, target: &Path) -> Result<(), DownloadError> {
        self.file
            .sync_all()
            .map_err(|e| self.io_error("flushing", e))?;
        let actual = hex::encode(self.hasher.finalize());
        let Part { path, file, .. } = self;
        drop(file);
        if actual != expected {
            let _ = std::fs::remove_file(&path);
            return Err(DownloadError::Mismatch {
                url: url.to_string(),
                expected: expected.to_string(),
                actual,
            });
        }
        std::fs::rename(&path, target).map_err(|source| DownloadError::Io {
            action: "renaming the verified download",
            path,
            source,
        })
    }
}

/// The sha256 and length of the file's content, leaving the position at its end.
fn hash_all(file: &mut File) -> std::io::Result<(Sha256, u64)> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut len = 0u64;
    file.seek(SeekFrom::Start(0))?;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok((hasher, len));
        }
        hasher.update(&buf[..n]);
        len += n as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_ranges_parse() {
        assert_eq!(
            parse_content_range("bytes 100-199/200"),
            Some((100, Some(200)))
        );
        assert_eq!(parse_content_range("bytes 5-9/*"), Some((5, None)));
        assert_eq!(parse_content_range("items 1-2/3"), None);
    }

    #[test]
    fn backoff_doubles_up_to_a_minute() {
        let mut o = FetchOptions::new("/c");
        o.retry_delay = Duration::from_secs(1);
        assert_eq!(backoff(&o, 1), Duration::from_secs(1));
        assert_eq!(backoff(&o, 3), Duration::from_secs(4));
        assert_eq!(backoff(&o, 30), Duration::from_secs(60));
    }
}
