//! `okd-install explain` (install-config fields, releases) and `explain-ignition`.

use std::path::Path;

use anyhow::{Context, Result};

use crate::console::emit;

/// `okd-install explain installconfig[.path]`.
pub(crate) fn explain(resource: &str) -> Result<()> {
    if resource == "releases" {
        return emit(&crate::release::supported_text());
    }
    emit(&installconfig::explain(resource)?)?;
    Ok(())
}

/// Larger than any Ignition config okd-install writes (a bootstrap config is a few MiB).
const MAX_IGNITION: u64 = 64 << 20;

/// `okd-install explain-ignition FILE`.
pub(crate) fn explain_ignition(file: &Path) -> Result<()> {
    // A file the user named: links followed, but never a FIFO or device (no hang), capped.
    let bytes = atomic_file::input::read_named(file, MAX_IGNITION)?;
    let text = String::from_utf8(bytes).with_context(|| {
        format!(
            "{} is not UTF-8 text, so not an Ignition config",
            file.display()
        )
    })?;
    let out = ignition::explain_ignition(&text)
        .with_context(|| format!("{} is not a readable Ignition config", file.display()))?;
    emit(&out)?;
    Ok(())
}
