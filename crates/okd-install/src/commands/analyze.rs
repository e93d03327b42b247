//! `okd-install analyze BUNDLE`: the same diagnosis `gather bootstrap` prints, offline.

use std::path::Path;

use anyhow::Context;

use crate::cli::OutputFormat;
use crate::diagnosis_output::print;
use crate::exit::Exit;

/// Analyses an existing log bundle and prints the result.
pub(crate) fn run(bundle: &Path, output: OutputFormat) -> Result<(), Exit> {
    let analysis = bundle_analysis::analyze_bundle(bundle)
        .with_context(|| format!("analysing {}", bundle.display()))?;
    print(&analysis, output)?;
    Ok(())
}
