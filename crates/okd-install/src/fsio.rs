//! Atomic file writes for the few files the binary writes itself (examples copied into the
//! asset directory, secrets bundles, rewritten kubeconfigs).

use std::path::Path;

use anyhow::{Context, Result};

/// Writes `data` to `path` through a temporary file in the same directory, with mode 0600.
pub(crate) fn write_secret_atomic(path: &Path, data: &[u8]) -> Result<()> {
    atomic_file::write(path, data, 0o600).with_context(|| format!("writing {}", path.display()))
}
