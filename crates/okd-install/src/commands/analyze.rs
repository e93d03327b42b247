//! `okd-install analyze BUNDLE`: the same diagnosis `gather bootstrap` prints, offline.

use std::path::Path;

use anyhow::Context;

use crate::cli::OutputFormat;
use crate::exit::Exit;

/// Analyses an existing log bundle and prints the result.
pub(crate) fn run(bundle: &Path, output: OutputFormat) -> Result<(), Exit> {
    let analysis = gather::analyze_bundle(bundle)
        .with_context(|| format!("analysing {}", bundle.display()))?;
    print(&analysis, output);
    Ok(())
}

/// Prints an analysis as text or one JSON line.
pub(crate) fn print(analysis: &gather::Analysis, output: OutputFormat) {
    match output {
        OutputFormat::Json => match serde_json::to_string(analysis) {
            Ok(line) => println!("{line}"),
            Err(e) => tracing::error!("cannot encode the analysis as JSON: {e}"),
        },
        OutputFormat::Text => print!("{}", analysis.render()),
    }
}
