//! Where a file lives in the cache, and where the cache is.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::DownloadError;

/// The cache of okd-install's boot images: `$XDG_CACHE_HOME/okd-install/coreos`, else
/// `~/.cache/okd-install/coreos` (the XDG base directory rule, as on Linux desktops).
pub fn default_cache_dir() -> Result<PathBuf, DownloadError> {
    cache_dir_from(std::env::var_os("XDG_CACHE_HOME"), std::env::var_os("HOME"))
}

/// [`default_cache_dir`] from the two variables (an empty or relative XDG_CACHE_HOME is
/// ignored, as the XDG specification says).
fn cache_dir_from(xdg: Option<OsString>, home: Option<OsString>) -> Result<PathBuf, DownloadError> {
    let xdg = xdg.map(PathBuf::from).filter(|p| p.is_absolute());
    let base = match (xdg, home.filter(|h| !h.is_empty())) {
        (Some(xdg), _) => xdg,
        (None, Some(home)) => PathBuf::from(home).join(".cache"),
        (None, None) => return Err(DownloadError::NoCacheDir),
    };
    Ok(base.join("okd-install").join("coreos"))
}

/// Where `url` with `sha256` is kept in `cache_dir`: `<sha256>-<file name>`. The hash in the
/// name keeps two builds' files of the same name apart and makes a stale `.part` of another
/// build impossible to resume by mistake.
pub fn cache_path(url: &str, sha256: &str, cache_dir: &Path) -> Result<PathBuf, DownloadError> {
    if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(DownloadError::BadSha256 {
            sha256: sha256.to_string(),
        });
    }
    let name = file_name(url);
    Ok(cache_dir.join(format!("{}-{name}", sha256.to_ascii_lowercase())))
}

/// The URL's last path segment, reduced to characters safe in a file name; `artifact` when
/// nothing is left.
pub(crate) fn file_name(url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let last = path.rsplit('/').next().unwrap_or_default();
    let safe: String = last
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
        .collect();
    if safe.trim_matches('.').is_empty() {
        "artifact".to_string()
    } else {
        safe
    }
}

/// The size of the cached file, if there is one.
pub(crate) fn cached_size(target: &Path) -> Option<u64> {
    std::fs::metadata(target)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len())
}

/// Creates the cache directory (and its parents).
pub(crate) fn create_dir(dir: &Path) -> Result<(), DownloadError> {
    std::fs::create_dir_all(dir).map_err(|source| DownloadError::Io {
        action: "creating the cache directory",
        path: dir.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_follows_xdg_then_home() {
        let dir = cache_dir_from(Some("/x/cache".into()), Some("/home/u".into())).unwrap();
        assert_eq!(dir, PathBuf::from("/x/cache/okd-install/coreos"));
        let dir = cache_dir_from(None, Some("/home/u".into())).unwrap();
        assert_eq!(dir, PathBuf::from("/home/u/.cache/okd-install/coreos"));
        let dir = cache_dir_from(Some("relative".into()), Some("/home/u".into())).unwrap();
        assert_eq!(dir, PathBuf::from("/home/u/.cache/okd-install/coreos"));
        assert!(matches!(
            cache_dir_from(Some("".into()), None),
            Err(DownloadError::NoCacheDir)
        ));
    }

    #[test]
    fn names_carry_the_hash_and_a_safe_file_name() {
        let sha = "AB".repeat(32);
        let p = cache_path("https://h/a/live.x86_64.iso?sig=1", &sha, Path::new("/c")).unwrap();
        assert_eq!(
            p,
            PathBuf::from(format!("/c/{}-live.x86_64.iso", "ab".repeat(32)))
        );
        assert_eq!(file_name("https://h/"), "artifact");
        assert_eq!(file_name("https://h/.."), "artifact");
        assert_eq!(file_name("https://h/a%2Fb"), "a2Fb");
        assert!(matches!(
            cache_path("https://h/x", "abc", Path::new("/c")),
            Err(DownloadError::BadSha256 { .. })
        ));
    }
}
