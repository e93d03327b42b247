//! Running a command and keeping what it said (`testkit::run`, as the real host maps it).

use std::process::Command;

use real_host::Result;

/// Runs `cmd`; its standard output when it exits 0, else an error with the end of both
/// streams.
pub(crate) fn output_of(cmd: &mut Command) -> Result<String> {
    testkit::run::output_of(cmd, 40).map_err(real_host::Error::from)
}
