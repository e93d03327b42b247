//! The host's root file system, made from Debian packages with mmdebstrap and cached.
//!
//! A CoreOS host carries systemd, NetworkManager, the journal gateway, sshd, podman and
//! ostree; our units need each of them (on a root without NetworkManager, for one, the
//! generator's `node-image-overlay.target` requires a unit that does not exist, and the
//! container's systemd stops at once). [`PACKAGES`] is that set from Debian. Making it takes
//! one to two minutes, so the tarball is kept in [`cache_dir`], under a name derived from the
//! package list and the apt sources it came from: a change to either makes a new one, and a
//! second run only unpacks.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::run::output_of;

/// The Debian release the root is made of (the machine's own: its apt sources are used).
pub const SUITE: &str = "bookworm";

/// The Debian packages of the host root: what a CoreOS host has that our units and scripts
/// use, and nothing of OKD's.
pub const PACKAGES: &[&str] = &[
    // PID 1, the journal, D-Bus (systemctl and NetworkManager talk over it).
    "systemd",
    "systemd-sysv",
    "dbus",
    // node-image-pull.service requires NetworkManager.service, as on CoreOS.
    "network-manager",
    // systemd-journal-gatewayd, which the bootstrap config serves the journal with.
    "systemd-journal-remote",
    // The gather logs in over SSH; node-image-overlay.target requires sshd.service.
    "openssh-server",
    "sudo",
    // Containers: the release image pull and every render.
    "podman",
    "crun",
    // The node image repository (the real ostree; only `ostree container` is a stand-in).
    "ostree",
    // What the shipped scripts call.
    "iproute2",
    "ca-certificates",
    "curl",
    "jq",
    "procps",
    "rsync",
    // CoreOS resolves its own host name without DNS; without it, every sudo waits ~5 s.
    "libnss-myhostname",
];

/// Where root tarballs are kept between runs: `$OKD_REAL_HOST_CACHE`, else a directory of
/// the machine's cache outside any repository.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("OKD_REAL_HOST_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/cache/okd-install/real-host"))
}

/// The apt sources files of the machine, which mmdebstrap is given: the root's packages come
/// from where the machine's own come from (a mirror or proxy the site set up included).
fn apt_sources() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("/etc/apt/sources.list.d")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "sources" || e == "list"))
        .collect();
    files.sort();
    let legacy = PathBuf::from("/etc/apt/sources.list");
    if legacy.metadata().is_ok_and(|m| m.len() > 0) {
        files.insert(0, legacy);
    }
    files
}

/// A made root, as a tarball in the cache.
#[derive(Debug, Clone)]
pub struct RootImage {
    /// The tarball.
    pub tarball: PathBuf,
}

impl RootImage {
    /// The cached root for [`PACKAGES`] and the machine's apt sources, made first when the
    /// cache has none. Runs at the same time wait for each other (a lock file in the cache).
    pub fn ensure() -> Result<RootImage> {
        let sources = apt_sources();
        let key = cache_key(PACKAGES, &sources)?;
        let dir = cache_dir();
        std::fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
        let tarball = dir.join(format!("{SUITE}-{key}.tar"));
        let lock_path = dir.join(".lock");
        let lock = File::create(&lock_path).map_err(Error::io(&lock_path))?;
        lock.lock().map_err(Error::io(&lock_path))?;
        if !tarball.is_file() {
            make(&tarball, &sources)?;
        }
        Ok(RootImage { tarball })
    }

    /// Unpacks the root into `dest` (created), keeping owners, modes and extended attributes.
    pub fn unpack(&self, dest: &Path) -> Result<()> {
        std::fs::create_dir_all(dest).map_err(Error::io(dest))?;
        output_of(
            Command::new("tar")
                .args(["--numeric-owner", "--xattrs", "--xattrs-include=*", "-xf"])
                .arg(&self.tarball)
                .arg("-C")
                .arg(dest),
        )
        .map(drop)
    }
}

/// The cache key: the first 16 hex digits of a SHA-256 over the suite, the packages and the
/// names and contents of the apt sources.
fn cache_key(packages: &[&str], sources: &[PathBuf]) -> Result<String> {
    let mut hash = Sha256::new();
    hash.update(SUITE.as_bytes());
    let mut sorted: Vec<&str> = packages.to_vec();
    sorted.sort_unstable();
    for package in sorted {
        hash.update(b"\0package ");
        hash.update(package.as_bytes());
    }
    for source in sources {
        let text = std::fs::read(source).map_err(Error::io(source))?;
        hash.update(b"\0source ");
        hash.update(source.as_os_str().as_encoded_bytes());
        hash.update(&text);
    }
    Ok(hex::encode(hash.finalize())[..16].to_string())
}

/// Makes the tarball with mmdebstrap, under a temporary name renamed at the end, so that an
/// interrupted run never leaves a tarball a later run would take for a whole one.
fn make(tarball: &Path, sources: &[PathBuf]) -> Result<()> {
    let partial = tarball.with_extension("tar.partial");
    let mut cmd = Command::new("mmdebstrap");
    cmd.args(["--quiet", "--variant=required", "--format=tar"])
        .arg(format!("--include={}", PACKAGES.join(",")))
        .arg(SUITE)
        .arg(&partial);
    cmd.args(sources);
    let made = output_of(&mut cmd);
    if let Err(e) = made {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    std::fs::rename(&partial, tarball).map_err(Error::io(tarball))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_changes_with_the_packages_and_the_sources_but_not_their_order() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.sources");
        std::fs::write(&a, "Types: deb\nURIs: http://deb.debian.org/debian\n").unwrap();
        let base = cache_key(&["systemd", "podman"], std::slice::from_ref(&a)).unwrap();
        assert_eq!(
            base,
            cache_key(&["podman", "systemd"], std::slice::from_ref(&a)).unwrap()
        );
        assert_ne!(
            base,
            cache_key(&["systemd"], std::slice::from_ref(&a)).unwrap()
        );
        std::fs::write(&a, "Types: deb\nURIs: http://mirror.example/debian\n").unwrap();
        assert_ne!(
            base,
            cache_key(&["systemd", "podman"], std::slice::from_ref(&a)).unwrap()
        );
    }
}
