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

/// `okd-install explain-ignition FILE`.
pub(crate) fn explain_ignition(file: &Path) -> Result<()> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let out = ignition::explain_ignition(&text)
        .with_context(|| format!("{} is not a readable Ignition config", file.display()))?;
    emit(&out)?;
    Ok(())
}
