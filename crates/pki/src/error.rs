//! One error type for the crate; every variant names the file or entry it is about so that a
//! user can find and fix the input.

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while creating, reading or checking PKI material.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The crypto backend refused to create a key (out of entropy, internal failure).
    #[error("could not generate an RSA key: {0}")]
    KeyGeneration(String),
    /// A PEM file could not be decoded or held something other than what was expected.
    #[error("{file}: {reason}")]
    Parse {
        /// The file (or secrets-bundle entry) that was read.
        file: String,
        /// What was wrong with it and what was expected instead.
        reason: String,
    },
    /// A private key does not belong to the certificate next to it.
    #[error(
        "{file}: the private key does not match the certificate's public key; \
         supply the key that the certificate was issued for"
    )]
    KeyMismatch {
        /// The certificate file (or bundle entry) whose key does not match.
        file: String,
    },
    /// Certificate construction or signing failed.
    #[error("could not create certificate {name}: {reason}")]
    Sign {
        /// File base name of the certificate, such as `root-ca`.
        name: &'static str,
        /// Why it failed.
        reason: String,
    },
    /// The caller asked for something the certificate table does not allow, for example
    /// self-signing a leaf certificate.
    #[error("{0}")]
    Usage(String),
    /// A secrets bundle is unreadable, belongs to another tool, or is internally inconsistent.
    #[error("secrets bundle {path}: {reason}")]
    Bundle {
        /// Path of the bundle file, as given by the caller.
        path: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// Serialising YAML failed (should not happen for our own types).
    #[error("could not write {what} as YAML: {reason}")]
    Yaml {
        /// What was being serialised.
        what: &'static str,
        /// The serializer's message.
        reason: String,
    },
    /// bcrypt hashing failed.
    #[error("could not hash the kubeadmin password: {0}")]
    Hash(String),
}

impl Error {
    pub(crate) fn parse(file: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Parse {
            file: file.into(),
            reason: reason.into(),
        }
    }
}
