//! A test hook: kill the process at a chosen point of a commit (see [`atomic_file::fault`]).
//!
//! **For tests only.** When the environment variable [`CRASH_AFTER_RENAMES`] holds a number
//! N ≥ 1, the process is killed (`SIGKILL`: no destructor runs, no state is saved) right after
//! the Nth rename it makes, counting in order the journal (the state saved before any output),
//! each output renamed into place and the final state; N = 0 kills it once every output of a
//! commit is staged in its temporary file, before the journal records them. The end-to-end
//! tests kill a real `okd-install create` at every such point, and fill the disk at each
//! ([`atomic_file::fault::DISK_FULL_AT_RENAME`]), and check that the next run converges.
//! Unset (as for every user), it costs one environment read per run.

/// The environment variable of the hook (test use only).
pub const CRASH_AFTER_RENAMES: &str = atomic_file::fault::KILL_AFTER_RENAMES;

/// The exit code a shell reports for a run the hook ended (128 + SIGKILL, as for `kill -9`).
pub const CRASH_EXIT: i32 = atomic_file::fault::KILLED_EXIT;

/// Every output of a commit is staged, none renamed: the process is killed when the hook
/// asks for 0.
pub(crate) fn staged() {
    if atomic_file::fault::kill_point() == Some(0) {
        atomic_file::fault::kill(0);
    }
}
