//! Replace a file atomically, with exact permission bits.
//!
//! The asset store, `wait-for`'s kubeconfig edit and the binary's own files (copied examples,
//! secrets bundles) all write through [`write`], so a reader, or a crash half-way, never sees
//! a partial file, and a secret is never readable by others for even a moment.

#![deny(missing_docs)]

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// How the temporary files [`write`] makes start: a directory scan can recognise a leftover
/// of an interrupted write by it (the asset store skips such files).
pub const TEMP_PREFIX: &str = ".okd-tmp-";

/// Replaces `path` with `data`: a temporary file in the same directory gets the bytes and
/// exactly `mode` (whatever the umask), is synced, renamed over `path`, and the directory is
/// synced so the rename itself survives a crash. The directory must exist.
pub fn write(path: &Path, data: &[u8], mode: u32) -> io::Result<()> {
    write_with(path, mode, |file| file.write_all(data))
}

/// Like [`write`], for contents too large to hold in memory (boot media of a gigabyte):
/// `fill` gets the temporary file, already with `mode`, and may write, seek and patch it in
/// place. When `fill` fails the temporary file is removed and `path` is left as it was.
pub fn write_with<F>(path: &Path, mode: u32, fill: F) -> io::Result<()>
where
    F: FnOnce(&mut fs::File) -> io::Result<()>,
{
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)?;
    tmp.as_file()
        .set_permissions(fs::Permissions::from_mode(mode))?;
    fill(tmp.as_file_mut())?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    fs::File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn replaces_the_file_with_the_exact_mode_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        super::write(&path, b"first", 0o644).unwrap();
        super::write(&path, b"second", 0o600).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["secret"]);
    }

    #[test]
    fn a_failed_fill_leaves_the_old_file_and_no_temp_file() {
        use std::io::{Seek, SeekFrom, Write};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("media.iso");
        super::write_with(&path, 0o644, |f| {
            f.write_all(b"0123456789")?;
            f.seek(SeekFrom::Start(2))?;
            f.write_all(b"ab")
        })
        .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"01ab456789");
        let err = super::write_with(&path, 0o600, |f| {
            f.write_all(b"half")?;
            Err(std::io::Error::other("too large"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "too large");
        assert_eq!(std::fs::read(&path).unwrap(), b"01ab456789");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_missing_directory_is_an_error_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("absent/file");
        let err = super::write(&path, b"x", 0o600).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
        assert!(!dir.path().join("absent").exists());
    }
}
