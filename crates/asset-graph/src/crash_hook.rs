//! A test hook: abort the process after the Nth rename of a commit.
//!
//! **For tests only.** When the environment variable [`CRASH_AFTER_RENAMES`] holds a number
//! N ≥ 1, the store ends the process with exit code [`CRASH_EXIT`] (as `kill -9` would end it:
//! no destructor runs, no state is saved, no core file is dumped) right after the Nth rename
//! of a commit of output files, counting the journal (the state saved before any output,
//! rename 1) and then each output renamed into place; N = 0 ends it once every output of the
//! commit is staged in its temporary file, before the journal records them. The end-to-end
//! tests kill a real `okd-install create` at every such point and check that the next run
//! converges. Unset (as for every user), it costs one environment read per run.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable of the hook (test use only).
pub const CRASH_AFTER_RENAMES: &str = "OKD_INSTALL_CRASH_AFTER_RENAMES";

/// The exit code of a run the hook ended (128 + SIGKILL, as a shell reports `kill -9`).
pub const CRASH_EXIT: i32 = 137;

static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
static DONE: AtomicU64 = AtomicU64::new(0);

fn limit() -> Option<u64> {
    *LIMIT.get_or_init(|| {
        std::env::var(CRASH_AFTER_RENAMES)
            .ok()
            .and_then(|v| v.trim().parse().ok())
    })
}

/// Every output of a commit is staged, none renamed: aborts when the hook asks for 0.
pub(crate) fn staged() {
    if limit() == Some(0) {
        abort(0);
    }
}

/// Counts one rename of a commit; aborts when it is the Nth the hook asks for.
pub(crate) fn renamed() {
    let Some(limit) = limit().filter(|&n| n >= 1) else {
        return;
    };
    if DONE.fetch_add(1, Ordering::SeqCst) + 1 == limit {
        abort(limit);
    }
}

fn abort(limit: u64) -> ! {
    eprintln!("{CRASH_AFTER_RENAMES}={limit}: aborting after rename {limit} (test hook)");
    std::process::exit(CRASH_EXIT);
}
