//! The names of the install dir's own bookkeeping files: a leaf module, so the error messages,
//! the file helpers, the lock and the state file all name them without depending on each
//! other.

/// Name of the state file inside the install dir.
pub const STATE_FILE: &str = ".okd-install-state.json";

/// Name of the lock file inside the install dir.
pub const LOCK_FILE: &str = ".okd-install-state.lock";

/// Whether a file name is one of the install dir's own bookkeeping files (state and lock).
///
/// They are neither user input nor output; the names are reserved wherever they appear.
pub(crate) fn is_reserved(name: &str) -> bool {
    name == STATE_FILE || name == LOCK_FILE
}
