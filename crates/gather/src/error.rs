//! Error types. Each message names the host, file or key involved and what to do about it.

use std::path::PathBuf;

/// Why a bundle could not be analysed at all.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// The file is missing, unreadable, or not a gzip-compressed tar archive.
    #[error("cannot analyse log bundle {path}: {reason}")]
    Bundle {
        /// The bundle path.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
}
