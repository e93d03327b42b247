//! Running a command and keeping what it said, for error messages (`testkit::run`, mapped
//! into this crate's errors).

use std::process::Command;

use crate::error::{Error, Result};

pub(crate) use testkit::run::{command_line, tail};

/// Runs `cmd`; its standard output when it exits 0, else an error with the end of both
/// streams.
pub(crate) fn output_of(cmd: &mut Command) -> Result<String> {
    testkit::run::output_of(cmd, 40).map_err(Error::from)
}

impl From<testkit::run::RunError> for Error {
    fn from(e: testkit::run::RunError) -> Self {
        match e {
            testkit::run::RunError::Spawn { command, source } => Error::Spawn { command, source },
            testkit::run::RunError::Failed {
                command,
                status,
                output,
            } => Error::Command {
                command,
                status,
                output,
            },
        }
    }
}
