//! Errors of the harness steps: each names the step, the command or file, and what to do.

use std::path::PathBuf;

/// What stopped a harness step.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A program the harness needs is not installed.
    #[error("{program} is not installed: {hint}")]
    MissingTool {
        /// The program.
        program: &'static str,
        /// How to get it.
        hint: &'static str,
    },
    /// No payload directory was named: the payload harness is a developer tool.
    #[error(
        "no OKD payload: set OKD_PAYLOAD_DIR to a payload directory (one with load.sh); none ships with okd-install"
    )]
    NoPayload,
    /// A command could not be started.
    #[error("cannot run {command}")]
    Spawn {
        /// The command line.
        command: String,
        /// Why.
        #[source]
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
        /// Why: part of the message, not a source, so that it is printed once.
        error: std::io::Error,
    },
    /// `load.sh` printed no release pull spec or no containers.conf export.
    #[error("{script} printed no {what}; its output was:\n{output}")]
    LoadOutput {
        /// The script.
        script: PathBuf,
        /// The missing line.
        what: &'static str,
        /// What it printed.
        output: String,
    },
    /// bootkube.sh stopped before the last render stage was done.
    #[error(
        "bootkube.sh stopped before the renders were done (last stage finished: {last_done}); its log {}:\n{tail}",
        log.display()
    )]
    BootkubeFailed {
        /// The last stage with a `.done` marker.
        last_done: String,
        /// The full log.
        log: PathBuf,
        /// The end of the log.
        tail: String,
    },
    /// A file the bootstrap controller step reads is missing a part it needs.
    #[error("{}: {what}", path.display())]
    Content {
        /// The file (a pod spec or one of the controller's outputs).
        path: PathBuf,
        /// What is missing or malformed.
        what: String,
    },
    /// bootkube.sh took longer than the harness allows.
    #[error("bootkube.sh did not finish its renders within {seconds}s; its log {}:\n{tail}", log.display())]
    Timeout {
        /// The limit.
        seconds: u64,
        /// The full log.
        log: PathBuf,
        /// The end of the log.
        tail: String,
    },
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |error| Error::Io { path, error }
    }

    /// The file `path` lacks a part the harness needs (`what`).
    pub(crate) fn content(path: &std::path::Path, what: &str) -> Error {
        Error::Content {
            path: path.to_path_buf(),
            what: what.to_string(),
        }
    }
}

pub(crate) use testkit::run::tail;
