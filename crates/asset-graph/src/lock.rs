//! The install dir's advisory lock, held for the lifetime of a [`crate::Store`].
//!
//! Two runs in one install dir would each read the state file, generate, and save: the last
//! save wins and the other run's keys are lost, although files it wrote may already use them.
//! An exclusive `flock`-style lock on a fixed file makes the second run fail at once instead.
//!
//! The lock file is never deleted: removing it while another process waits on it, or is about
//! to open it, would let two processes lock two different files under the same name. The
//! operating system releases the lock when the file is closed, including when the process
//! dies, so a stale lock cannot outlive its run.

use std::fs::{self, OpenOptions, TryLockError};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use crate::error::GraphError;
use crate::fsutil;
use crate::reserved::LOCK_FILE;
/// Mode of the lock file: anyone who can open it could hold the lock, so only the owner may.
const LOCK_MODE: u32 = 0o600;

/// An exclusive lock on an install dir; released when dropped.
#[derive(Debug)]
pub(crate) struct DirLock {
    // Closing the file releases the lock; the field exists only to be dropped.
    _file: fs::File,
}

/// Creates `dir` if needed and locks it, failing with [`GraphError::Busy`] when another
/// process (or another open [`crate::Store`]) holds the lock.
pub(crate) fn acquire(dir: &Path) -> Result<DirLock, GraphError> {
    fsutil::create_dirs(dir)?;
    let path = dir.join(LOCK_FILE);
    let io = |e| GraphError::io(&path, e);
    refuse_non_file(&path)?;
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(LOCK_MODE)
        .open(&path)
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            return Err(GraphError::Busy {
                path: dir.to_path_buf(),
            });
        }
        Err(TryLockError::Error(e)) => return Err(io(e)),
    }
    tighten(&file).map_err(io)?;
    Ok(DirLock { _file: file })
}

/// Sets mode 0600 on the open file (not the path, which could be swapped meanwhile): a file
/// left by an older run or another tool may be looser.
fn tighten(file: &fs::File) -> std::io::Result<()> {
    if file.metadata()?.permissions().mode() & 0o7777 != LOCK_MODE {
        file.set_permissions(fs::Permissions::from_mode(LOCK_MODE))?;
    }
    Ok(())
}

/// Anything but a regular file in place of the lock file is refused: a symlink would make us
/// create or re-mode some other file, and opening a FIFO for writing would hang.
fn refuse_non_file(path: &Path) -> Result<(), GraphError> {
    let what = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => "a symbolic link",
        Ok(meta) if !meta.is_file() => "not a regular file",
        _ => return Ok(()),
    };
    Err(GraphError::io(
        path,
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "is {what}, so it cannot be okd-install's lock file; move it away and run again"
            ),
        ),
    ))
}
