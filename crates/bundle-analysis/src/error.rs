//! The one error of reading a bundle: it cannot be read at all (anything less is a finding).

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
