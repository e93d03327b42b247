//! Exit codes: an error together with the code the process ends with.

use std::fmt;

/// 1: any error without a more specific code.
pub(crate) const GENERIC: i32 = 1;
/// 3: install-config.yaml cannot be read or is invalid, or an image-mode manifest made from it
/// is not ready, or the release image's release is unknown or not supported, or a boot-media
/// input is unusable (not a live ISO, a config too large for it, a missing .ign, a bad role),
/// or a file of DIR is not one it reads (a link out of DIR, a FIFO, a directory).
pub(crate) const INSTALL_CONFIG: i32 = 3;
/// 8: interrupted.
pub(crate) const INTERRUPTED: i32 = 8;
/// 9: `verify` found errors.
pub(crate) const VERIFY_FAILED: i32 = 9;

/// An error and its exit code; `main` prints it once, as the last thing the command says.
pub(crate) struct Exit {
    /// Process exit code.
    pub code: i32,
    /// What went wrong (printed with its whole chain).
    pub error: anyhow::Error,
    /// Lines printed below the error, e.g. the diagnosis of a failed wait.
    pub detail: Option<String>,
}

impl Exit {
    /// An error with an explicit code.
    pub(crate) fn code(code: i32, error: anyhow::Error) -> Exit {
        Exit {
            code,
            error,
            detail: None,
        }
    }

    /// An error whose code is derived from its cause (see [`classify`]).
    pub(crate) fn other(error: anyhow::Error) -> Exit {
        Exit::code(classify(&error), error)
    }

    /// The same error with `detail` printed below it.
    pub(crate) fn with_detail(self, detail: Option<String>) -> Exit {
        Exit { detail, ..self }
    }

    /// The error, each cause on its own line, then the detail.
    pub(crate) fn render(&self) -> String {
        let mut out = render_chain(&self.error);
        if let Some(detail) = &self.detail {
            out.push('\n');
            out.push_str(detail);
        }
        out
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

/// 3 when anything in the chain is an install-config problem, else 1. Loading the
/// install-config asset counts whatever the cause (unreadable, not UTF-8, bad YAML, invalid
/// fields): the user has to fix that one file either way; so do image-mode manifests that still
/// need the user's values.
pub(crate) fn classify(error: &anyhow::Error) -> i32 {
    use asset_graph::Asset;
    let invalid_config = error.chain().any(|e| {
        e.downcast_ref::<installconfig::LoadError>().is_some()
            || e.downcast_ref::<releases::ResolveError>().is_some()
            || e.downcast_ref::<bootmedia::Error>()
                .is_some_and(bootmedia::Error::is_invalid_input)
            || e.downcast_ref::<assets::Error>()
                .is_some_and(assets::Error::is_invalid_input)
            || e.downcast_ref::<asset_graph::GraphError>()
                .is_some_and(asset_graph::GraphError::is_invalid_input)
            || e.downcast_ref::<atomic_file::input::InputError>()
                .is_some_and(|e| !matches!(e, atomic_file::input::InputError::Io { .. }))
            || matches!(
                e.downcast_ref::<asset_graph::GraphError>(),
                Some(asset_graph::GraphError::Load { asset, .. })
                    if *asset == assets::config::InstallConfigAsset::NAME
            )
    });
    if invalid_config {
        INSTALL_CONFIG
    } else {
        GENERIC
    }
}

/// The error and its causes, one per line. Every error type of the workspace prints its
/// cause either in its own message or as a source, never both, so nothing repeats.
fn render_chain(error: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in error.chain() {
        if !out.is_empty() {
            out.push_str("\n  caused by: ");
        }
        out.push_str(&cause.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_install_config_is_an_install_config_problem() {
        let load = asset_graph::GraphError::Load {
            asset: <assets::config::InstallConfigAsset as asset_graph::Asset>::NAME,
            file: assets::layout::INSTALL_CONFIG.into(),
            source: "stream did not contain valid UTF-8".into(),
        };
        assert_eq!(classify(&anyhow::Error::new(load)), INSTALL_CONFIG);
        let other = asset_graph::GraphError::Load {
            asset: "Manifests",
            file: "manifests/x.yaml".into(),
            source: "not YAML".into(),
        };
        assert_eq!(classify(&anyhow::Error::new(other)), GENERIC);
    }

    #[test]
    fn each_cause_is_one_line_and_the_detail_follows() {
        let inner = std::io::Error::other("disk full");
        let error = anyhow::Error::new(inner).context("writing bootstrap.ign");
        let exit = Exit::code(GENERIC, error).with_detail(Some("next: df -h".into()));
        assert_eq!(
            exit.render(),
            "writing bootstrap.ign\n  caused by: disk full\nnext: df -h"
        );
    }
}
