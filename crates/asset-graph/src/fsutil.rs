//! Filesystem and hashing helpers: atomic writes, safe paths, canonical content hashes.

use std::fs;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::GraphError;

/// Mode of directories we create: no access for others (the tree holds secrets).
pub(crate) const DIR_MODE: u32 = 0o750;
/// Prefix of our temporary files; [`is_backup_or_temp`] recognises it.
use atomic_file::TEMP_PREFIX;
/// Marker in the name of a preserved user edit.
pub(crate) const BACKUP_MARKER: &str = ".user-edit-";

/// Lower-case hex SHA-256 of `data`.
pub(crate) fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

/// SHA-256 of a JSON value with object keys sorted at every level.
///
/// Sorting makes the hash independent of map iteration order (a `HashMap` field would
/// otherwise change the hash, and so trigger regeneration, on every run).
pub(crate) fn content_hash(value: &serde_json::Value) -> String {
    let bytes = serde_json::to_vec(&sorted(value)).unwrap_or_default();
    sha256_hex(&bytes)
}

fn sorted(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Larger than any file okd-install reads from the install dir (the state file with every
/// key, a bootstrap config of a few MiB): such a file is refused before it is read.
pub(crate) const MAX_INPUT: u64 = 256 << 20;

/// Reads `rel` of the install dir `dir` as data ([`atomic_file::input`]: no link out of
/// `dir`, no FIFO or device, at most [`MAX_INPUT`] bytes); `Ok(None)` when it does not exist.
pub(crate) fn read_if_exists(dir: &Path, rel: &Path) -> Result<Option<Vec<u8>>, GraphError> {
    atomic_file::input::read_in_dir_if_exists(dir, rel, MAX_INPUT).map_err(GraphError::input)
}

/// Like [`read_if_exists`] for a file that must be there.
pub(crate) fn read_input(dir: &Path, rel: &Path) -> Result<Vec<u8>, GraphError> {
    atomic_file::input::read_in_dir(dir, rel, MAX_INPUT).map_err(GraphError::input)
}

/// Names of the entries directly inside `dir` that are not directories (empty when `dir` is
/// missing): regular files, and also FIFOs, devices and links, so that reading them reports
/// what they are instead of skipping them silently.
pub(crate) fn list_files(dir: &Path) -> Result<Vec<String>, GraphError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(GraphError::io(dir, e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| GraphError::io(dir, e))?;
        let path = entry.path();
        if !path.is_dir() {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    Ok(names)
}

/// Whether a file name is one of our user-edit backups or temporary files.
pub(crate) fn is_backup_or_temp(name: &str) -> bool {
    name.contains(BACKUP_MARKER) || name.starts_with(TEMP_PREFIX)
}

/// Permission bits of an existing file.
pub(crate) fn mode_of(path: &Path) -> Option<u32> {
    fs::metadata(path)
        .ok()
        .map(|m| m.permissions().mode() & 0o7777)
}

/// Whether `path` is relative and stays inside the directory it is joined to.
pub(crate) fn is_safe_relative(path: &Path) -> bool {
    path.components().next().is_some()
        && path.components().all(|c| matches!(c, Component::Normal(_)))
}

/// Creates `dir` and its missing parents with mode 0750.
pub(crate) fn create_dirs(dir: &Path) -> Result<(), GraphError> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(dir)
        .map_err(|e| GraphError::io(dir, e))
}

/// Replaces `path` with `data` through [`atomic_file::write`] (exact `mode`, a reader sees the
/// old or the new content, a crash leaves no partial file), creating missing parents first.
pub(crate) fn write_atomic(path: &Path, data: &[u8], mode: u32) -> Result<(), GraphError> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        create_dirs(dir)?;
    }
    atomic_file::write(path, data, mode).map_err(|e| GraphError::io(path, e))
}

/// The first half of [`write_atomic`] ([`atomic_file::stage`]): the bytes wait in a synced
/// temporary file next to `path` until committed; missing parents are created first.
pub(crate) fn stage(
    path: &Path,
    data: &[u8],
    mode: u32,
) -> Result<atomic_file::Staged, GraphError> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        create_dirs(dir)?;
    }
    atomic_file::stage(path, data, mode).map_err(|e| GraphError::io(path, e))
}

/// Sets the permission bits of an existing file when they differ from `mode`.
pub(crate) fn ensure_mode(path: &Path, mode: u32) -> Result<(), GraphError> {
    if mode_of(path) != Some(mode) {
        fs::set_permissions(path, fs::Permissions::from_mode(mode))
            .map_err(|e| GraphError::io(path, e))?;
    }
    Ok(())
}

/// Moves a user-edited file aside to `<name>.user-edit-<secs>` (with `-N` appended if that
/// name is taken) and returns the new path. Nothing is ever deleted.
pub(crate) fn preserve(path: &Path, unix_secs: u64) -> Result<PathBuf, GraphError> {
    let mut base = path.as_os_str().to_owned();
    base.push(format!("{BACKUP_MARKER}{unix_secs}"));
    let mut candidate = PathBuf::from(&base);
    let mut n = 1;
    while candidate.exists() {
        let mut next = base.clone();
        next.push(format!("-{n}"));
        candidate = PathBuf::from(next);
        n += 1;
    }
    fs::rename(path, &candidate).map_err(|e| GraphError::io(path, e))?;
    Ok(candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_hash_ignores_key_order() {
        let a = serde_json::json!({"a": 1, "b": {"x": [1, 2], "y": null}});
        let b = serde_json::json!({"b": {"y": null, "x": [1, 2]}, "a": 1});
        assert_eq!(content_hash(&a), content_hash(&b));
        assert_ne!(content_hash(&a), content_hash(&serde_json::json!({"a": 2})));
    }

    #[test]
    fn safe_relative_paths() {
        assert!(is_safe_relative(Path::new("auth/kubeconfig")));
        assert!(!is_safe_relative(Path::new("/etc/passwd")));
        assert!(!is_safe_relative(Path::new("../x")));
        assert!(!is_safe_relative(Path::new("a/../../x")));
        assert!(!is_safe_relative(Path::new("")));
        assert!(!is_safe_relative(Path::new("./x")));
    }

    #[test]
    fn write_atomic_sets_mode_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/dir/key.pem");
        write_atomic(&path, b"secret", 0o600).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"secret");
        assert_eq!(mode_of(&path), Some(0o600));
        assert_eq!(
            mode_of(&dir.path().join("sub")).map(|m| m & 0o777),
            Some(0o750)
        );
        write_atomic(&path, b"other", 0o640).unwrap();
        assert_eq!(mode_of(&path), Some(0o640));
        let names = list_files(&dir.path().join("sub/dir")).unwrap();
        assert_eq!(names, vec!["key.pem".to_string()]);
    }

    #[test]
    fn inputs_are_read_as_data_of_the_install_dir_only() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("shadow"), "root:secret").unwrap();
        fs::create_dir(dir.path().join("manifests")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("shadow"),
            dir.path().join("manifests/linked.yaml"),
        )
        .unwrap();
        let fifo = dir.path().join("manifests/pipe.yaml");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let mut names = list_files(&dir.path().join("manifests")).unwrap();
        names.sort();
        assert_eq!(
            names,
            ["linked.yaml", "pipe.yaml"],
            "neither is skipped silently"
        );
        let err = read_input(dir.path(), Path::new("manifests/linked.yaml")).unwrap_err();
        assert!(err.is_invalid_input(), "{err}");
        assert!(err.to_string().contains("outside"), "{err}");
        assert!(!err.to_string().contains("root:secret"), "{err}");
        let err = read_if_exists(dir.path(), Path::new("manifests/pipe.yaml")).unwrap_err();
        assert!(err.to_string().contains("named pipe"), "{err}");
        assert!(
            read_if_exists(dir.path(), Path::new("absent.yaml"))
                .unwrap()
                .is_none()
        );
        // The state file is one of them.
        std::os::unix::fs::symlink(
            outside.path().join("shadow"),
            dir.path().join(crate::STATE_FILE),
        )
        .unwrap();
        let err = crate::state::load(&crate::state::path_in(dir.path())).unwrap_err();
        assert!(err.is_invalid_input(), "{err}");
    }

    #[test]
    fn leftovers_of_ended_writes_are_removed_at_once_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("auth")).unwrap();
        // A killed run's file: nobody holds its lock, however new it is.
        let left = dir.path().join(format!("auth/{TEMP_PREFIX}abc"));
        let mine = dir.path().join("install-config.yaml");
        for p in [&left, &mine] {
            fs::write(p, "x").unwrap();
        }
        // A write in progress (another command copying a boot ISO) holds its lock.
        let live = stage(&dir.path().join("worker.iso"), b"half", 0o644).unwrap();
        let removed = atomic_file::remove_abandoned_below(dir.path());
        assert_eq!(removed, [PathBuf::from(format!("auth/{TEMP_PREFIX}abc"))]);
        assert!(!left.exists());
        assert!(live.temp_path().exists(), "a write in progress is kept");
        assert!(mine.exists(), "never anything but our temporary files");
        live.commit().unwrap();
        assert_eq!(fs::read(dir.path().join("worker.iso")).unwrap(), b"half");
    }

    #[test]
    fn preserve_never_overwrites_an_older_backup() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "one").unwrap();
        let first = preserve(&path, 5).unwrap();
        fs::write(&path, "two").unwrap();
        let second = preserve(&path, 5).unwrap();
        assert_ne!(first, second);
        assert_eq!(fs::read_to_string(first).unwrap(), "one");
        assert_eq!(fs::read_to_string(second).unwrap(), "two");
        assert!(!path.exists());
    }
}
