//! What stopped a step of making or booting a real host: each error names the command or
//! file and what went wrong.

use std::path::PathBuf;

/// What stopped a step.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A command could not be started.
    #[error("cannot run {command}: {source}")]
    Spawn {
        /// The command line.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// A command ran and failed.
    #[error("{command} failed ({status}):\n{output}")]
    Command {
        /// The command line.
        command: String,
        /// Its exit status.
        status: String,
        /// The end of its output.
        output: String,
    },
    /// A file could not be read or written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A server of the lab answered what it should not have.
    #[error("{what}: {detail}")]
    Answer {
        /// What was asked.
        what: String,
        /// What came back.
        detail: String,
    },
    /// The host did not get where it should within the time allowed.
    #[error("{what} within {seconds} s; {detail}")]
    Timeout {
        /// What did not happen.
        what: String,
        /// The time allowed.
        seconds: u64,
        /// What was seen instead.
        detail: String,
    },
}

impl Error {
    /// An [`Error::Io`] maker for `map_err`.
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |error| Error::Io { path, error }
    }
}

/// The result of a step.
pub type Result<T> = std::result::Result<T, Error>;
