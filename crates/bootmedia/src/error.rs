//! The one error type of the crate. Each variant names the file involved and, where the user
//! can act, what to do.

use std::path::PathBuf;

/// What went wrong reading or writing boot media.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{action} {}", path.display())]
    Io {
        /// What was being done ("reading", "writing").
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not an ISO 9660 image at all.
    #[error("{} is not an ISO 9660 image ({reason}); pass a CoreOS live ISO with --iso", path.display())]
    NotIso {
        /// The file.
        path: PathBuf,
        /// Why it is not.
        reason: String,
    },
    /// An ISO 9660 image that is not a CoreOS live ISO (no Ignition area).
    #[error(
        "{} is not a CoreOS live ISO: {reason}; pass the live ISO of the release \
         (`okd-install coreos print-stream-json` names it) with --iso",
        path.display()
    )]
    NotLive {
        /// The file.
        path: PathBuf,
        /// What is missing or malformed.
        reason: String,
    },
    /// The live ISO lacks a feature a flag needs.
    #[error("{} does not support {flag} ({reason}); use a newer live ISO or drop {flag}", path.display())]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// The flag that needs the feature.
        flag: &'static str,
        /// What the ISO lacks.
        reason: String,
    },
    /// The compressed config image does not fit into the ISO's Ignition area.
    #[error(
        "the compressed Ignition config image for {} is {needed} bytes but the ISO's Ignition \
         area holds {capacity} bytes; make the config smaller (fewer or smaller files, \
         --compress when creating it) or boot with PXE (`okd-install create pxe-files`)",
        path.display()
    )]
    TooLarge {
        /// The ISO whose area is too small.
        path: PathBuf,
        /// Size of the compressed image.
        needed: u64,
        /// Size of the area.
        capacity: u64,
    },
    /// The kernel arguments do not fit into the ISO's kernel-argument areas.
    #[error(
        "the kernel arguments are {needed} bytes but {} holds at most {capacity}; drop some --karg",
        path.display()
    )]
    KargsTooLong {
        /// The ISO.
        path: PathBuf,
        /// Bytes needed (with the terminator).
        needed: usize,
        /// Size of each area.
        capacity: usize,
    },
    /// The embedded data is not in the expected format.
    #[error("{}: {what}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// An input the caller gave is unusable (a keyfile name, a kernel argument).
    #[error("{0}")]
    Input(String),
}

impl Error {
    /// True when the user has to change an input (the ISO, a flag, the config), as opposed to
    /// a failure of the machine (a full disk): the binary exits with its input-error code.
    pub fn is_invalid_input(&self) -> bool {
        match self {
            Error::Io {
                action: "reading",
                source,
                ..
            } => source.kind() == std::io::ErrorKind::NotFound,
            Error::Io { .. } => false,
            _ => true,
        }
    }

    /// An input that could not be read: not found and I/O errors as [`Error::Io`] (so a
    /// missing file keeps its exit code), a link, special file or size as [`Error::Input`].
    pub(crate) fn from_input(e: atomic_file::input::InputError) -> Error {
        match e {
            atomic_file::input::InputError::Io { path, source } => Error::read(&path, source),
            other => Error::Input(other.to_string()),
        }
    }

    pub(crate) fn read(path: &std::path::Path, source: std::io::Error) -> Error {
        Error::Io {
            action: "reading",
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn write(path: &std::path::Path, source: std::io::Error) -> Error {
        Error::Io {
            action: "writing",
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn not_live(path: &std::path::Path, reason: impl Into<String>) -> Error {
        Error::NotLive {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }

    pub(crate) fn format(path: &std::path::Path, what: impl Into<String>) -> Error {
        Error::Format {
            path: path.to_path_buf(),
            what: what.into(),
        }
    }
}

/// Result of this crate.
pub(crate) type Result<T> = std::result::Result<T, Error>;
