//! Error types.

use std::path::PathBuf;

/// Failures while generating manifests.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A generated object could not be rendered as YAML (a bug, not a user error).
    #[error("rendering {file} as YAML failed")]
    Render {
        /// Relative output path.
        file: String,
        /// Serializer error (the source, not repeated in the message).
        #[source]
        source: serde_saphyr::SerializeError,
    },
    /// A certificate input could not be read.
    #[error("{field}: {reason}; regenerate the TLS assets or supply a valid PEM certificate")]
    Certificate {
        /// Which input field.
        field: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// An input value cannot be rendered (normally caught by install-config validation).
    #[error("{field}: {reason}")]
    Input {
        /// Install-config field path.
        field: String,
        /// What is wrong.
        reason: String,
    },
    /// `cvo-overrides.yaml` is missing or is not a ClusterVersion.
    #[error("manifests/cvo-overrides.yaml: {reason}")]
    CvoOverrides {
        /// What is wrong.
        reason: String,
    },
}

/// A problem with one user manifest file, with its position when known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {message}", path.display(), position.map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default())]
pub struct ManifestError {
    /// The file, relative to the install directory (e.g. `openshift/99_extra.yaml`).
    pub path: PathBuf,
    /// 1-based line and column, when the parser reported one.
    pub position: Option<(u64, u64)>,
    /// What is wrong and how to fix it.
    pub message: String,
}
