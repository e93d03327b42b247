//! `download::fetch` against a local HTTP server: progress, the sha256 check, resuming, the
//! cache and offline mode; over HTTPS, the server's certificate check.

mod https;
mod server;

use std::path::Path;
use std::time::Duration;

use download::{DownloadError, FetchOptions, Progress, fetch};
use sha2::{Digest, Sha256};

use server::{Seen, Server};

/// 300 000 bytes that differ everywhere, so a resume at the wrong offset shows.
fn content() -> Vec<u8> {
    let mut x: u32 = 12345;
    (0..300_000)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (x >> 16) as u8
        })
        .collect()
}

fn sha256(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

/// Options for tests: no waiting between retries.
fn options(cache: &Path) -> FetchOptions {
    let mut o = FetchOptions::new(cache);
    o.retry_delay = Duration::from_millis(10);
    o.idle_timeout = Duration::from_secs(10);
    o
}

/// Every file in `dir`, by name.
fn files(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

fn get(path: &str) -> Seen {
    Seen {
        path: path.into(),
        range: None,
    }
}

#[test]
fn progress_is_reported_up_to_the_total_and_the_file_is_named_by_its_hash() {
    let data = content();
    let server = Server::start(data.clone(), &[]);
    let cache = tempfile::tempdir().unwrap();
    let mut reports = Vec::new();
    let path = fetch(
        &server.url("/files/live.x86_64.iso"),
        &sha256(&data),
        &options(cache.path()),
        &mut |p| reports.push(p),
    )
    .unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), data);
    assert_eq!(
        files(cache.path()),
        [format!("{}-live.x86_64.iso", sha256(&data))]
    );
    let total = Some(data.len() as u64);
    assert!(reports.iter().all(|p| p.total == total), "{reports:?}");
    assert!(reports.windows(2).all(|w| w[0].done <= w[1].done));
    assert_eq!(
        reports.last(),
        Some(&Progress {
            done: data.len() as u64,
            total
        })
    );
}

#[test]
fn a_sha256_mismatch_is_refused_and_leaves_nothing_behind() {
    let data = content();
    let server = Server::start(data.clone(), &[]);
    let cache = tempfile::tempdir().unwrap();
    let wrong = sha256(b"something else");
    let err = fetch(
        &server.url("/files/live.iso"),
        &wrong,
        &options(cache.path()),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(matches!(err, DownloadError::Mismatch { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains(&wrong) && text.contains(&sha256(&data)),
        "{text}"
    );
    assert_eq!(files(cache.path()), Vec::<String>::new());
}

#[test]
fn a_cut_connection_is_resumed_with_a_range_request() {
    let data = content();
    let server = Server::start(data.clone(), &[Some(100_000)]);
    let cache = tempfile::tempdir().unwrap();
    let path = fetch(
        &server.url("/files/rootfs.img"),
        &sha256(&data),
        &options(cache.path()),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), data);
    let seen = server.seen();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0], get("/files/rootfs.img"));
    assert_eq!(seen[1].range.as_deref(), Some("bytes=100000-"), "{seen:?}");
    assert_eq!(files(cache.path()).len(), 1, "no .part left");
}

#[test]
fn a_part_file_left_by_an_earlier_run_is_resumed() {
    let data = content();
    let server = Server::start(data.clone(), &[]);
    let cache = tempfile::tempdir().unwrap();
    let url = server.url("/files/kernel");
    let target = download::cache_path(&url, &sha256(&data), cache.path()).unwrap();
    let part = format!("{}.part", target.display());
    std::fs::write(&part, &data[..123_456]).unwrap();
    let mut first = None;
    let path = fetch(&url, &sha256(&data), &options(cache.path()), &mut |p| {
        first.get_or_insert(p);
    })
    .unwrap();
    assert_eq!(path, target);
    assert_eq!(std::fs::read(&path).unwrap(), data);
    assert_eq!(server.seen()[0].range.as_deref(), Some("bytes=123456-"));
    assert_eq!(
        first.unwrap().done,
        123_456,
        "progress starts at the resumed bytes"
    );
    assert!(!Path::new(&part).exists());
}

#[test]
fn retries_are_bounded_and_keep_the_part_for_the_next_run() {
    let data = content();
    // Every response is cut before its first byte.
    let server = Server::start(data.clone(), &[Some(0); 10]);
    let cache = tempfile::tempdir().unwrap();
    let mut o = options(cache.path());
    o.retries = 2;
    let err = fetch(&server.url("/files/x.iso"), &sha256(&data), &o, &mut |_| {}).unwrap_err();
    assert!(
        matches!(err, DownloadError::Transfer { attempts: 3, .. }),
        "{err}"
    );
    assert_eq!(server.seen().len(), 3);
    assert!(files(cache.path())[0].ends_with(".part"));
}

#[test]
fn the_second_run_uses_the_cache_without_a_request() {
    let data = content();
    let server = Server::start(data.clone(), &[]);
    let cache = tempfile::tempdir().unwrap();
    let url = server.url("/files/initramfs.img");
    let first = fetch(&url, &sha256(&data), &options(cache.path()), &mut |_| {}).unwrap();
    let mut reports = Vec::new();
    let second = fetch(&url, &sha256(&data), &options(cache.path()), &mut |p| {
        reports.push(p)
    })
    .unwrap();
    assert_eq!(first, second);
    assert_eq!(server.seen().len(), 1, "{:?}", server.seen());
    let len = data.len() as u64;
    assert_eq!(
        reports,
        [Progress {
            done: len,
            total: Some(len)
        }]
    );
}

#[test]
fn offline_uses_the_cache_and_otherwise_says_how_to_get_the_file() {
    let data = content();
    let server = Server::start(data.clone(), &[]);
    let cache = tempfile::tempdir().unwrap();
    let url = server.url("/files/scos-live-iso.x86_64.iso");
    let mut offline = options(cache.path());
    offline.offline = true;

    let err = fetch(&url, &sha256(&data), &offline, &mut |_| {}).unwrap_err();
    assert!(matches!(err, DownloadError::Offline { .. }), "{err}");
    let text = err.to_string();
    for needle in ["scos-live-iso.x86_64.iso", "--iso FILE", "online"] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    assert!(server.seen().is_empty());

    fetch(&url, &sha256(&data), &options(cache.path()), &mut |_| {}).unwrap();
    let path = fetch(&url, &sha256(&data), &offline, &mut |_| {}).unwrap();
    assert_eq!(std::fs::read(path).unwrap(), data);
    assert_eq!(server.seen().len(), 1);
}

#[test]
fn redirects_are_followed() {
    let data = content();
    let server = Server::start(data.clone(), &[]);
    let cache = tempfile::tempdir().unwrap();
    let path = fetch(
        &server.url("/redirect/a.iso"),
        &sha256(&data),
        &options(cache.path()),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(std::fs::read(path).unwrap(), data);
    let seen = server.seen();
    assert_eq!(seen, [get("/redirect/a.iso"), get("/files/a.iso")]);
}

#[test]
fn a_missing_file_is_not_retried() {
    let server = Server::start(content(), &[]);
    let cache = tempfile::tempdir().unwrap();
    let err = fetch(
        &server.url("/nothing/here.iso"),
        &sha256(b""),
        &options(cache.path()),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        matches!(err, DownloadError::Status { status: 404, .. }),
        "{err}"
    );
    assert_eq!(server.seen().len(), 1);
}
