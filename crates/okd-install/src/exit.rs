//! Exit codes: an error together with the code the process ends with.

use std::fmt;

/// 1: any error without a more specific code.
pub const GENERIC: i32 = 1;
/// 3: install-config.yaml (or an image-mode manifest made from it) is invalid.
pub const INSTALL_CONFIG: i32 = 3;
/// 8: interrupted.
pub const INTERRUPTED: i32 = 8;
/// 9: `verify` found errors.
pub const VERIFY_FAILED: i32 = 9;

/// An error and its exit code.
pub struct Exit {
    /// Process exit code.
    pub code: i32,
    /// What went wrong (printed with its whole chain).
    pub error: anyhow::Error,
}

impl Exit {
    /// An error with an explicit code.
    pub fn code(code: i32, error: anyhow::Error) -> Exit {
        Exit { code, error }
    }

    /// An error whose code is derived from its cause (see [`classify`]).
    pub fn other(error: anyhow::Error) -> Exit {
        Exit {
            code: classify(&error),
            error,
        }
    }
}

impl From<anyhow::Error> for Exit {
    fn from(error: anyhow::Error) -> Self {
        Exit::other(error)
    }
}

impl fmt::Debug for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "exit {}: {:#}", self.code, self.error)
    }
}

/// 3 when anything in the chain is an install-config problem (including image-mode manifests
/// that still need the user's values), else 1.
pub fn classify(error: &anyhow::Error) -> i32 {
    let invalid_config = error.chain().any(|e| {
        e.downcast_ref::<installconfig::LoadError>().is_some()
            || e.downcast_ref::<assets::ignition::SingleNodeConfigError>()
                .is_some()
            || e.downcast_ref::<assets::ignition::ImageModeNotReady>()
                .is_some()
    });
    if invalid_config {
        INSTALL_CONFIG
    } else {
        GENERIC
    }
}

/// The error and its causes, one per line, skipping a cause whose text the previous message
/// already contains (library errors often include their source in their own message).
pub fn render_chain(error: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str("\n  caused by: ");
        }
        out.push_str(&text);
    }
    out
}
