//! Test hooks: a kill, or a full disk, at a chosen rename of the process.
//!
//! **For tests only.** Every rename a write of this crate makes ([`crate::Staged::commit`],
//! and so [`crate::write`]) is counted in the process, in order: for the asset store that is
//! the journal (the state saved before any output), each output, then the final state; for
//! the binary's own files (a copied example, a secrets bundle, boot media) each file. The
//! end-to-end tests stop a real `okd-install` at every such point in turn and check that the
//! next run converges to what an uninterrupted run writes:
//!
//! - [`KILL_AFTER_RENAMES`] = N ≥ 1: the process sends itself `SIGKILL` right after the Nth
//!   rename (nothing runs after it: no destructor, no state save). N = 0 is the asset store's
//!   point once every output of a commit is staged, before its journal
//!   (`asset_graph::CRASH_AFTER_RENAMES`, the same variable).
//! - [`KILL_BEFORE_RENAME`] = N ≥ 1: the same, just before the Nth rename (its new file
//!   whole in its temporary file, a gigabyte ISO's copy done but not in place).
//! - [`DISK_FULL_AT_RENAME`] = N ≥ 1: from the Nth rename on, every rename and every new
//!   temporary file fails with `ENOSPC`, as on a disk that filled up there; N = 0 makes the
//!   disk full from the start.
//!
//! Unset (as for every user), each costs one environment read per process.

use std::io;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The environment variable of the kill hook (test use only).
pub const KILL_AFTER_RENAMES: &str = "OKD_INSTALL_CRASH_AFTER_RENAMES";

/// The environment variable of the hook that kills the process just before its Nth rename,
/// the new file complete in its temporary file (test use only).
pub const KILL_BEFORE_RENAME: &str = "OKD_INSTALL_CRASH_BEFORE_RENAME";

/// The environment variable of the full-disk hook (test use only).
pub const DISK_FULL_AT_RENAME: &str = "OKD_INSTALL_DISK_FULL_AT_RENAME";

/// How a shell reports a process the kill hook ended: 128 + `SIGKILL`.
pub const KILLED_EXIT: i32 = 128 + libc::SIGKILL;

static KILL: OnceLock<Option<u64>> = OnceLock::new();
static KILL_BEFORE: OnceLock<Option<u64>> = OnceLock::new();
static FULL: OnceLock<Option<u64>> = OnceLock::new();
static RENAMES: AtomicU64 = AtomicU64::new(0);
/// The simulated disk filled up (a rename failed on it).
static FILLED: AtomicBool = AtomicBool::new(false);

fn setting(cell: &'static OnceLock<Option<u64>>, name: &str) -> Option<u64> {
    *cell.get_or_init(|| std::env::var(name).ok().and_then(|v| v.trim().parse().ok()))
}

/// The kill hook's N, if set.
pub fn kill_point() -> Option<u64> {
    setting(&KILL, KILL_AFTER_RENAMES)
}

/// Ends the process at once with `SIGKILL`, as a power loss or `kill -9` would (test hook).
pub fn kill(point: u64) -> ! {
    eprintln!("killed by the test hook at point {point}");
    // SAFETY: raising a signal in the own process has no memory-safety precondition.
    unsafe {
        libc::raise(libc::SIGKILL);
    }
    // SIGKILL cannot be caught; should it not have arrived yet, end without cleanup anyway.
    std::process::abort()
}

/// Before the next rename (the one [`renamed`] counts): kills the process when the hook asks
/// for it there; fails when the simulated disk is full.
pub(crate) fn before_rename() -> io::Result<()> {
    let next = RENAMES.load(Ordering::SeqCst) + 1;
    if setting(&KILL_BEFORE, KILL_BEFORE_RENAME) == Some(next) {
        kill(next);
    }
    let Some(at) = setting(&FULL, DISK_FULL_AT_RENAME) else {
        return Ok(());
    };
    if next >= at {
        FILLED.store(true, Ordering::SeqCst);
        return Err(no_space());
    }
    Ok(())
}

/// Whether the simulated disk is full when a new temporary file is made.
pub(crate) fn disk_full_before_stage() -> io::Result<()> {
    let Some(at) = setting(&FULL, DISK_FULL_AT_RENAME) else {
        return Ok(());
    };
    if at == 0 || FILLED.load(Ordering::SeqCst) {
        return Err(no_space());
    }
    Ok(())
}

fn no_space() -> io::Error {
    io::Error::from_raw_os_error(libc::ENOSPC)
}

/// Counts one rename; kills the process when it is the Nth the kill hook asks for.
pub(crate) fn renamed() {
    let n = RENAMES.fetch_add(1, Ordering::SeqCst) + 1;
    if kill_point() == Some(n) {
        kill(n);
    }
}
